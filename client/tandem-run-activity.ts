import { html, nothing } from 'lit';
import { LightElement } from './light-element.ts';
import type { RunRecord } from '../shared/protocol/run-record.ts';

const count = new Intl.NumberFormat('en');

/**
 * What the agent of the document's current run tells of its work (MODEL8), a region named
 * `Agent activity`: the agent's name and model, its lines in a polite live log (new lines are
 * read out as they come) and the tokens its model used. Shown while the run is claimed or in
 * review; renders nothing when the agent told nothing.
 */
export class TandemRunActivity extends LightElement {
  static properties = { run: { attribute: false } };
  /** The run queued, claimed or in review, or null. */
  declare run: RunRecord | null;

  constructor() {
    super();
    this.run = null;
  }

  render() {
    const run = this.run;
    if (!run || (run.state !== 'claimed' && run.state !== 'review') || !run.agent) return nothing;
    const { agent, usage } = run;
    return html`<section class="run-activity" aria-labelledby="run-activity-title" data-run-id=${run.runId}>
      <h2 class="panel-title" id="run-activity-title">Agent activity</h2>
      <p class="run-agent muted">${agent.name}${agent.model ? html` · <span class="run-model">${agent.model}</span>` : ''}</p>
      <ol class="activity-lines" role="log" aria-live="polite" aria-label="What the agent does">
        ${run.activity.map((line) => html`<li><time datetime=${line.at}>${clock(line.at)}</time> <span class="activity-text">${line.text}</span></li>`)}
      </ol>
      ${usage
        ? html`<p class="run-usage muted">
            Tokens: ${count.format(usage.inputTokens)} in${usage.cachedInputTokens > 0 ? ` (${count.format(usage.cachedInputTokens)} cached)` : ''} ·
            ${count.format(usage.outputTokens)} out
          </p>`
        : ''}
    </section>`;
  }
}

function clock(iso: string): string {
  return new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
}

customElements.define('tandem-run-activity', TandemRunActivity);
