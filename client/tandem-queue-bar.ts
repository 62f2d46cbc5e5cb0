import { html, nothing } from 'lit';
import { LightElement } from './light-element.ts';
import { ContextConsumer } from '@lit/context';
import { sessionContext } from './session-context.ts';
import type * as Y from 'yjs';
import type { Instruction } from '../shared/notes/annotations.ts';
import { readyText, sendLabel } from './instruction-queue.ts';
import { ApiError, cancelRun } from './api.ts';
import { AgentWatch } from './agent-watch.ts';
import { RunSender } from './run-sender.ts';
import type { RunProgress } from './run-status.ts';
import './tandem-send-dialog.ts';

/**
 * The file-level queue bar: `N instructions ready` and `Send N to agent` (editors), which opens
 * the send dialog, and the progress line of the current run (a polite live region, with an
 * activity indicator while an agent is expected to work), with `Cancel run` (editors) while that
 * run is queued or claimed (RUN6), and `No agent is connected` beside the button when the server
 * saw no agent for the document lately, else `Agent connected: NAME (MODEL)` (RUN7,
 * client/agent-watch.ts). Sending needs a connection and no outstanding run: otherwise the
 * button is disabled and the bar says why.
 */
export class TandemQueueBar extends LightElement {
  static properties = {
    docId: {},
    ready: { attribute: false },
    orphaned: { attribute: false },
    textYdoc: { attribute: false },
    blocker: {},
    canSend: { type: Boolean },
    progress: { attribute: false },
    cancellable: {},
    dialogOpen: { state: true },
    cancelling: { state: true },
    cancelProblem: { state: true },
  };
  declare docId: string;
  declare ready: readonly Instruction[];
  /** Ids of instructions whose text is deleted. */
  declare orphaned: ReadonlySet<string>;
  /** The document's text, for the send dialog's drift marks. */
  declare textYdoc: Y.Doc | null;
  /** Why sending cannot happen now (`Sending needs a connection`, `A run is in review`…), or null. */
  declare blocker: string | null;
  declare canSend: boolean;
  declare progress: RunProgress | null;
  /** The run an editor may cancel now (queued or claimed, RUN6), or null. */
  declare cancellable: string | null;
  declare dialogOpen: boolean;
  declare cancelling: boolean;
  declare cancelProblem: string | null;

  private readonly sessionFrom = new ContextConsumer(this, { context: sessionContext, subscribe: true });
  private readonly sender = new RunSender(this);
  private readonly agentWatch = new AgentWatch(this, () => {
    const token = this.sessionFrom.value?.token;
    return this.canSend && token && this.docId ? { token, docId: this.docId } : null;
  });

  constructor() {
    super();
    this.docId = '';
    this.ready = [];
    this.orphaned = new Set();
    this.textYdoc = null;
    this.blocker = null;
    this.canSend = false;
    this.progress = null;
    this.cancellable = null;
    this.dialogOpen = false;
    this.cancelling = false;
    this.cancelProblem = null;
  }

  /** Who would take a run (RUN7), once the server said: `No agent is connected`, or their names and models. */
  private renderAgents() {
    const agents = this.agentWatch.agents;
    if (agents === null) return '';
    if (agents.length === 0) return html`<span class="queue-no-agent">No agent is connected</span>`;
    const names = agents.map((agent) => (agent.model ? `${agent.name} (${agent.model})` : agent.name));
    return html`<span class="queue-agents muted">${agents.length === 1 ? 'Agent' : 'Agents'} connected: ${names.join(', ')}</span>`;
  }

  render() {
    const count = this.ready.length;
    const showQueue = this.canSend && count > 0;
    const progress = this.progress;
    const cancel = this.canSend ? this.cancellable : null;
    const empty = !showQueue && !progress && !cancel;
    // The live region stays rendered while the bar is empty (collapsed, and no landmark then),
    // so that screen readers announce the progress line when it appears.
    return html`<div
        class="queue-bar ${empty ? 'is-empty' : ''}"
        role=${empty ? nothing : 'region'}
        aria-label=${empty ? nothing : 'Instructions for the agent'}
      >
        ${showQueue
          ? html`<span class="queue-count">${readyText(count)}</span>
              <button
                type="button"
                class="primary send-button"
                ?disabled=${this.blocker !== null}
                aria-describedby=${this.blocker ? 'queue-blocker' : nothing}
                @click=${this.openDialog}
              >
                ${sendLabel(count)}
              </button>
              ${this.blocker ? html`<span id="queue-blocker" class="queue-blocker">${this.blocker}</span>` : ''}
              ${this.renderAgents()}`
          : ''}
        <p class="run-progress ${progress?.failed ? 'is-failed' : ''}" aria-live="polite">
          ${progress
            ? html`${progress.busy ? html`<span class="activity" aria-hidden="true"></span>` : ''}<span class="run-progress-text"
                  >${progress.text}</span
                >`
            : ''}
        </p>
        ${cancel
          ? html`<button type="button" class="cancel-run" ?disabled=${this.cancelling} @click=${() => this.cancel(cancel)}>Cancel run</button>
              ${this.cancelProblem ? html`<span class="message error" role="alert">${this.cancelProblem}</span>` : ''}`
          : ''}
      </div>
      ${this.canSend
        ? html`<tandem-send-dialog
            .open=${this.dialogOpen}
            .instructions=${this.ready}
            .orphaned=${this.orphaned}
            .textYdoc=${this.textYdoc}
            .blocker=${this.blocker}
            .sending=${this.sender.sending}
            .problem=${this.sender.problem}
            @send-confirm=${this.confirm}
            @dialog-close=${this.closeDialog}
          ></tandem-send-dialog>`
        : ''}`;
  }

  /** RUN6: the run leaves the queue bar by itself, through the `<id>/runs` mirror. */
  private async cancel(runId: string) {
    this.cancelling = true;
    this.cancelProblem = null;
    try {
      await cancelRun(this.sessionFrom.value?.token ?? '', runId);
    } catch (error) {
      this.cancelProblem = error instanceof ApiError ? error.message : 'The run could not be cancelled.';
    } finally {
      this.cancelling = false;
    }
  }

  private openDialog() {
    this.sender.clear();
    this.dialogOpen = true;
  }

  private closeDialog() {
    this.dialogOpen = false;
    this.sender.clear();
    void this.updateComplete.then(() => this.querySelector<HTMLElement>('.send-button')?.focus());
  }

  private async confirm() {
    if (await this.sender.send(this.sessionFrom.value?.token ?? '', this.docId)) this.closeDialog();
  }
}

customElements.define('tandem-queue-bar', TandemQueueBar);
