import { html, nothing } from 'lit';
import { LightElement } from './light-element.ts';
import { ContextConsumer } from '@lit/context';
import { sessionContext } from './session-context.ts';
import type { NotReverted, RunRecord } from '../shared/protocol/run-record.ts';
import { ApiError, revertRun, undoDiscard, undoRevert } from './api.ts';
import { decidedRunStates, recentDecidedRuns } from '../shared/protocol/run-state-names.ts';

type Action = 'revert' | 'undo-revert' | 'undo-discard';

/**
 * The document's recently decided runs (a region named `Recent runs`): who accepted or
 * discarded each, and for editors a button `Revert run` on an accepted run (REV8, asked once:
 * `Confirm revert` or `Cancel`), `Undo revert` on a reverted one (REV14) and `Undo
 * discard` on the newest run when it was discarded (REV9). What a revert left as it was is
 * listed under the run. A button the server refused (the window closed, the run no longer
 * revertible) gives way to the server's words.
 */
export class TandemRecentRuns extends LightElement {
  static properties = {
    runs: { attribute: false },
    blocker: {},
    busy: { state: true },
    message: { state: true },
    confirming: { state: true },
  };
  /** The document's runs, newest first. */
  declare runs: readonly RunRecord[];
  /** Why these cannot happen now (`Needs a connection`), or null. */
  declare blocker: string | null;
  declare busy: { runId: string; action: Action } | null;
  /** What the last request said, about which run. */
  declare message: { runId: string; text: string; error: boolean } | null;
  /** The run whose `Revert run` was clicked and waits for `Confirm revert`, or null. */
  declare confirming: string | null;
  /** Runs whose button the server refused: it is not offered again. */
  private readonly refused = new Set<string>();
  private readonly sessionFrom = new ContextConsumer(this, { context: sessionContext, subscribe: true });

  private get token(): string {
    return this.sessionFrom.value?.token ?? '';
  }

  /** Whether this person may revert or undo a discard (editors). */
  private get canDecide(): boolean {
    return !!this.sessionFrom.value?.may('decide-run');
  }

  constructor() {
    super();
    this.runs = [];
    this.blocker = null;
    this.busy = null;
    this.message = null;
    this.confirming = null;
  }

  render() {
    // As many as the server keeps revertible (REV8), and the mirror always holds.
    const decided = this.runs.filter((run) => decidedRunStates.includes(run.state)).slice(0, recentDecidedRuns);
    if (decided.length === 0) return nothing;
    return html`<section class="recent-runs" aria-labelledby="recent-runs-title">
      <h2 class="panel-title" id="recent-runs-title">Recent runs</h2>
      <ul class="recent-runs-list">
        ${decided.map((run) => this.renderRun(run))}
      </ul>
      ${this.blocker && this.canDecide ? html`<p class="offline-note">${this.blocker}</p>` : ''}
    </section>`;
  }

  private renderRun(run: RunRecord) {
    const message = this.message?.runId === run.runId ? this.message : null;
    return html`<li class="recent-run" data-run-id=${run.runId}>
      <span class="recent-run-what">${describeRun(run)}</span>
      ${this.renderButton(run)}
      ${run.reverted && run.reverted.notReverted.length > 0
        ? html`<ul class="recent-run-not-reverted" aria-label="Not reverted">
            ${run.reverted.notReverted.map((entry) => html`<li>${notRevertedText(run, entry)}</li>`)}
          </ul>`
        : ''}
      ${message ? html`<p class="message ${message.error ? 'error' : ''}" role=${message.error ? 'alert' : 'status'}>${message.text}</p>` : ''}
    </li>`;
  }

  private renderButton(run: RunRecord) {
    if (!this.canDecide || this.refused.has(run.runId)) return '';
    const action = actionFor(run, this.runs[0]?.runId === run.runId);
    if (!action) return '';
    const busy = this.busy?.runId === run.runId;
    if (action === 'revert' && this.confirming === run.runId && !busy) {
      return html`<div class="recent-run-confirm" role="group" aria-label="Confirm revert">
        <p>Take this run's accepted changes out of the text? Edits made since stay.</p>
        <button type="button" class="primary" ?disabled=${this.busy !== null || this.blocker !== null} @click=${() => this.act(run, action)}>
          Confirm revert
        </button>
        <button type="button" @click=${() => (this.confirming = null)}>Cancel</button>
      </div>`;
    }
    if (action === 'revert') {
      return html`<button type="button" ?disabled=${this.busy !== null || this.blocker !== null} @click=${() => (this.confirming = run.runId)}>
        ${busy ? 'Reverting…' : 'Revert run'}
      </button>`;
    }
    return html`<button type="button" ?disabled=${this.busy !== null || this.blocker !== null} @click=${() => this.act(run, action)}>
      ${busy ? 'Undoing…' : action === 'undo-revert' ? 'Undo revert' : 'Undo discard'}
    </button>`;
  }

  private async act(run: RunRecord, action: Action) {
    if (this.busy) return;
    this.busy = { runId: run.runId, action };
    this.confirming = null;
    this.message = null;
    try {
      if (action === 'revert') {
        const { notReverted } = await revertRun(this.token, run.runId);
        const text = notReverted.length === 0 ? 'Run reverted.' : `Run reverted, but for ${notReverted.length === 1 ? 'one change' : `${notReverted.length} changes`} written over since.`;
        this.message = { runId: run.runId, text, error: false };
      } else if (action === 'undo-revert') {
        await undoRevert(this.token, run.runId);
        this.message = { runId: run.runId, text: 'Revert undone: the run’s changes are back.', error: false };
      } else {
        await undoDiscard(this.token, run.runId);
        this.message = { runId: run.runId, text: 'Discard undone: the run is in review again.', error: false };
      }
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) this.refused.add(run.runId);
      const what = action === 'revert' ? 'reverted' : 'undone';
      const text = error instanceof ApiError && error.code !== 'OFFLINE' ? error.message : `This could not be ${what}: the server cannot be reached.`;
      this.message = { runId: run.runId, text, error: true };
    } finally {
      this.busy = null;
    }
  }
}

/** What the list offers on `run` (`newest`: the document's latest run), or null. */
function actionFor(run: RunRecord, newest: boolean): Action | null {
  if (run.state === 'accepted') return run.reverted ? 'undo-revert' : 'revert';
  return run.state === 'discarded' && newest ? 'undo-discard' : null;
}

function describeRun(run: RunRecord): string {
  const [only] = run.items;
  const what = run.items.length === 1 && only ? `“${only.instruction}”` : `${run.items.length} instructions`;
  const by = run.decidedBy ? ` by ${run.decidedBy.name}` : '';
  if (run.reverted) return `${what}: accepted${by}, reverted by ${run.reverted.by.name}`;
  return `${what}: ${run.state}${by}`;
}

function notRevertedText(run: RunRecord, entry: NotReverted): string {
  const item = run.items.find((candidate) => candidate.instructionId === entry.instructionId);
  const why = entry.reason === 'removed' ? 'its block was deleted since' : 'its text was changed since';
  return `Not reverted: “${item?.instruction ?? 'a change'}” (${why})`;
}

customElements.define('tandem-recent-runs', TandemRecentRuns);
