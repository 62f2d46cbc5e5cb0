import { html, nothing } from 'lit';
import { LightElement } from './light-element.ts';
import { ContextConsumer } from '@lit/context';
import { sessionContext } from './session-context.ts';
import type { ItemOutcome, RunChange, RunItem, RunRecord } from '../shared/protocol/run-record.ts';
import { RunDecider } from './run-decider.ts';
import { ApiError, chooseVariant, decideItem, type RunDecision } from './api.ts';
import { variantStep } from './variant-choice.ts';
import { textDiff, type TextDiffPart } from '../shared/applier/text-diff.ts';
import { notAppliedNote } from '../shared/applier/pending-delete-attr.ts';
import { isPageOpKind } from '../shared/page/page-ops.ts';
import { pageChangeTexts } from '../shared/page/page-change-view.ts';

/** The longest reason the server takes (PROTOCOL.md REV5). */
const maxReasonLength = 2000;

/** In review an instruction still `pending` was left alone, like an `unchanged` one. */
export const outcomeLabels: Record<ItemOutcome, string> = {
  changed: 'Changed',
  refused: 'Refused',
  unchanged: 'Unchanged',
  pending: 'Unchanged',
};

/**
 * The review's keys (REV12), read on the whole page, so that they work from the text too: none
 * of them is a key of the editor (client/editing-plugins.ts, editor-commands.ts, editor-plugins.ts
 * bind Mod-…, Mod-Alt-…, Shift-Tab and Shift-Enter; ProseMirror's base keymap Alt-ArrowUp/Down).
 * Matched by `KeyboardEvent.code`, since Alt changes `key` on some layouts.
 */
export const reviewKeys = {
  next: { code: 'KeyN', label: 'Alt+Shift+N' },
  previous: { code: 'KeyP', label: 'Alt+Shift+P' },
  accept: { code: 'KeyA', label: 'Alt+Shift+A' },
  discard: { code: 'KeyD', label: 'Alt+Shift+D' },
} as const;

/** The detail of `review-select`: show this instruction's change in the text. */
export interface ReviewSelectDetail {
  runId: string;
  instructionId: string;
}

/**
 * The review of a run (a region named `Review run`, PROTOCOL.md REV13): each instruction by its number, what
 * happened to it (changed, refused with the agent's reason, unchanged), the text it removed
 * struck through and the text it added, a note on each delete or replacement that Accept will
 * not apply because people changed the block meanwhile (REV6), the agent's summary, and for
 * editors `Accept run` and `Discard run` with a textbox `Reason for discarding (optional)`.
 * Each item is a group `Change N` with, for editors, `Accept change` and `Discard change`
 * (REV12), on a page run too; `reviewKeys` move between the groups and decide the focused one.
 * An item with variants (VAR2) says `Variant K of N` and has, for editors while it is undecided,
 * `Previous variant` and `Next variant` (they wrap around; Alt+ArrowLeft and Alt+ArrowRight do the
 * same in the focused group), which show another candidate in the text for everyone.
 * Others see the same, read-only. Fires `review-select` (ReviewSelectDetail),
 * and `review-closed` when the run this person decided on has left review (the buttons that
 * held the focus are gone; the owner puts it somewhere useful).
 */
export class TandemReviewPanel extends LightElement {
  static properties = {
    run: { attribute: false },
    blocker: {},
    notApplied: { attribute: false },
    targetNames: { attribute: false },
    itemBusy: { state: true },
    itemProblem: { state: true },
  };
  declare run: RunRecord | null;
  /** Why deciding cannot happen now (`Needs a connection`), or null. */
  declare blocker: string | null;
  /** `"<runId> <blockId>"` → who changed a block the run deleted meanwhile (client/not-applied.ts). */
  declare notApplied: ReadonlyMap<string, string[]>;
  /** Block or element id → what to call an instruction's target when its quote is empty (a page's image: `image “A cat”`, PAGE15). */
  declare targetNames: ReadonlyMap<string, string>;

  private readonly sessionFrom = new ContextConsumer(this, { context: sessionContext, subscribe: true });
  private readonly decider = new RunDecider(this);
  /** What this person typed as the reason for discarding, and the run it is for. */
  private reason = { runId: '', text: '' };
  /** The item whose decision or choice of variant is out (`"<runId> <instructionId>"`), and what it says meanwhile; or null. */
  declare itemBusy: { key: string; label: string } | null;
  /** Why the last item decision or choice of variant was refused, and for which item. */
  declare itemProblem: { key: string; text: string } | null;
  private readonly onKey = (event: KeyboardEvent) => this.handleKey(event);
  /** The `updatedAt` of the run when this person last decided it. */
  private decidedVersion: string | null = null;

  constructor() {
    super();
    this.run = null;
    this.blocker = null;
    this.notApplied = new Map();
    this.targetNames = new Map();
    this.itemBusy = null;
    this.itemProblem = null;
  }

  connectedCallback(): void {
    super.connectedCallback();
    document.addEventListener('keydown', this.onKey);
  }

  disconnectedCallback(): void {
    super.disconnectedCallback();
    document.removeEventListener('keydown', this.onKey);
  }

  private get token(): string {
    return this.sessionFrom.value?.token ?? '';
  }

  /** Whether this person may accept or discard (editors). */
  private get canDecide(): boolean {
    return !!this.sessionFrom.value?.may('decide-run');
  }

  render() {
    const run = this.run;
    if (!run) return nothing;
    const counts = countOutcomes(run.items);
    return html`<section class="review-panel" aria-labelledby="review-title" data-run-id=${run.runId}>
      <h2 class="panel-title" id="review-title">Review run</h2>
      <p class="review-meta muted">
        ${run.claimedBy ? html`${run.claimedBy.name} answered` : 'Answered'} ${run.createdBy.name}’s
        ${run.items.length === 1 ? 'instruction' : `${run.items.length} instructions`}: ${counts}
      </p>
      ${run.summary ? html`<p class="review-summary">${run.summary}</p>` : ''}
      ${this.canDecide ? this.renderDecision(run) : html`<p class="review-note muted">An editor accepts or discards this run.</p>`}
      <ol class="review-items" aria-label="Instructions of the run">
        ${run.items.map((item, index) => this.renderItem(run, item, index + 1))}
      </ol>
    </section>`;
  }

  private renderItem(run: RunRecord, item: RunItem, number: number) {
    const changes = run.changes.filter((change) => change.instructionId === item.instructionId);
    return html`<li
      class="review-item outcome-${item.outcome}"
      role="group"
      aria-label="Change ${number}"
      tabindex="-1"
      data-instruction-id=${item.instructionId}
      @keydown=${(event: KeyboardEvent) => this.onItemKey(event, run, item)}
    >
      <div class="review-item-head">
        <span class="review-number" aria-hidden="true">${number}</span>
        <span class="review-instruction">${item.instruction}</span>
        <span class="review-outcome outcome-${item.outcome}">${outcomeLabels[item.outcome]}</span>
      </div>
      <p class="review-quote">on ${item.quote === '' && this.targetNames.has(item.blockId) ? this.targetNames.get(item.blockId) : `“${item.quote}”`}</p>
      ${item.reason
        ? html`<p class="review-reason">
            <span class="review-reason-label">${item.outcome === 'refused' ? 'Why:' : 'Agent:'}</span> ${item.reason}
          </p>`
        : ''}
      ${changes.length
        ? html`<ul class="review-changes" aria-label="Changes">
            ${changes.map((change) => {
              const note = this.noteOf(run, change);
              return html`<li class="review-change op-${change.op}">
                ${renderChange(change)}${note ? html`<p class="review-not-applied" role="note">${note}</p>` : ''}
              </li>`;
            })}
          </ul>`
        : ''}
      ${this.renderVariants(run, item)} ${this.renderItemDecision(run, item, changes.length > 0)}
      ${changes.some((change) => change.after)
        ? html`<button type="button" class="link-button review-show" @click=${() => this.select(run.runId, item.instructionId)}>
            Show in text<span class="visually-hidden"> (instruction ${number})</span>
          </button>`
        : ''}
    </li>`;
  }

  /** The item's decision (REV12), or for editors its buttons while it is undecided. */
  private renderItemDecision(run: RunRecord, item: RunItem, changed: boolean) {
    if (item.decision !== null) {
      return html`<p class="review-decision decision-${item.decision}">${item.decision === 'accepted' ? 'Accepted' : 'Discarded'}</p>`;
    }
    if (!changed || !this.canDecide) return '';
    const key = itemKey(run, item);
    const disabled = this.itemBusy !== null || this.decidingBlocked(run);
    const problem = this.itemProblem?.key === key ? this.itemProblem.text : null;
    return html`<div class="review-item-buttons">
        <button type="button" ?disabled=${disabled} @click=${() => this.decideItem(run, item, 'accept')}>Accept change</button>
        <button type="button" ?disabled=${disabled} @click=${() => this.decideItem(run, item, 'discard')}>Discard change</button>
        ${this.itemBusy?.key === key ? html`<span class="review-busy muted">${this.itemBusy.label}</span>` : ''}
      </div>
      ${problem ? html`<p class="message error" role="alert">${problem}</p>` : ''}`;
  }

  /** Whether every item's buttons are off: the whole run's decision is out or made, or deciding cannot happen now. */
  private decidingBlocked(run: RunRecord): boolean {
    return this.decider.busy !== null || this.decider.decided === run.runId || this.blocker !== null;
  }

  /**
   * VAR2: which candidate the text shows, and for editors while the item is undecided the buttons
   * to show another. They stay enabled while a choice is out (a press meanwhile does nothing), so
   * that the focus stays on the one pressed.
   */
  private renderVariants(run: RunRecord, item: RunItem) {
    const step = variantStep(item);
    if (!step) return '';
    const choosable = item.decision === null && this.canDecide;
    const disabled = this.decidingBlocked(run);
    return html`<div class="review-variants">
      <span class="review-variant-label" aria-live="polite">${step.label}</span>
      ${choosable
        ? html`<button type="button" ?disabled=${disabled} aria-keyshortcuts="Alt+ArrowLeft" @click=${() => this.choose(run, item, step.previous)}>
              Previous variant
            </button>
            <button type="button" ?disabled=${disabled} aria-keyshortcuts="Alt+ArrowRight" @click=${() => this.choose(run, item, step.next)}>
              Next variant
            </button>`
        : ''}
    </div>`;
  }

  /** Alt+ArrowLeft / Alt+ArrowRight in an item's group: its previous or next variant. */
  private onItemKey(event: KeyboardEvent, run: RunRecord, item: RunItem) {
    if (!event.altKey || event.shiftKey || event.ctrlKey || event.metaKey) return;
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    const step = variantStep(item);
    if (!step || item.decision !== null || !this.canDecide || this.decidingBlocked(run)) return;
    event.preventDefault();
    void this.choose(run, item, event.key === 'ArrowLeft' ? step.previous : step.next);
  }

  private async decideItem(run: RunRecord, item: RunItem, decision: RunDecision) {
    const reason = decision === 'discard' && this.reason.runId === run.runId ? this.reason.text : undefined;
    await this.askForItem(run, item, 'Deciding…', 'The change could not be decided', () =>
      decideItem(this.token, run.runId, item.instructionId, decision, reason),
    );
  }

  private async choose(run: RunRecord, item: RunItem, variant: number) {
    await this.askForItem(run, item, 'Showing the variant…', 'The variant could not be shown', () =>
      chooseVariant(this.token, run.runId, item.instructionId, variant),
    );
  }

  /**
   * One request for an item, while no other is out: `busyLabel` meanwhile, and a refusal in the
   * server's words under the item's buttons (`failure` with why, when the server cannot be reached).
   * What it changes reaches the panel through the runs mirror.
   */
  private async askForItem(run: RunRecord, item: RunItem, busyLabel: string, failure: string, ask: () => Promise<unknown>) {
    if (this.itemBusy !== null) return;
    const key = itemKey(run, item);
    this.itemBusy = { key, label: busyLabel };
    this.itemProblem = null;
    try {
      await ask();
    } catch (error) {
      const text = error instanceof ApiError && error.code !== 'OFFLINE' ? error.message : `${failure}: the server cannot be reached.`;
      this.itemProblem = { key, text };
    } finally {
      this.itemBusy = null;
    }
  }

  /** `reviewKeys`: Alt+Shift with N/P moves the focus between the changes, A/D decides the focused one. */
  private handleKey(event: KeyboardEvent) {
    if (!event.altKey || !event.shiftKey || event.ctrlKey || event.metaKey || !this.run) return;
    const groups = [...this.querySelectorAll<HTMLElement>('.review-item[role="group"]')];
    if (groups.length === 0) return;
    const focused = groups.findIndex((group) => group.contains(document.activeElement));
    const move = (to: number) => groups[(to + groups.length) % groups.length]?.focus();
    if (event.code === reviewKeys.next.code) move(focused < 0 ? 0 : focused + 1);
    else if (event.code === reviewKeys.previous.code) move(focused < 0 ? groups.length - 1 : focused - 1);
    else if (event.code === reviewKeys.accept.code || event.code === reviewKeys.discard.code) {
      if (focused < 0) return;
      const focusedId = groups[focused]?.dataset.instructionId;
      const item = this.run.items.find((candidate) => candidate.instructionId === focusedId);
      if (!item || item.decision !== null || !this.canDecide) return;
      void this.decideItem(this.run, item, event.code === reviewKeys.accept.code ? 'accept' : 'discard');
    } else return;
    event.preventDefault();
  }

  /** Why a change is not applied (REV6): the server's note after Accept, else what the text shows now. */
  private noteOf(run: RunRecord, change: RunChange): string | null {
    if (change.note) return change.note;
    if (change.op !== 'replace_block' && change.op !== 'delete_block') return null;
    const names = this.notApplied.get(`${run.runId} ${change.blockId}`);
    return names ? notAppliedNote(names, change.op) : null;
  }

  private renderDecision(run: RunRecord) {
    const { busy } = this.decider;
    const disabled = busy !== null || this.decider.decided === run.runId || this.blocker !== null;
    const problem = this.decider.problemWith(run.runId);
    return html`<div class="review-buttons" aria-busy=${busy ? 'true' : 'false'}>
        <button type="button" class="primary" ?disabled=${disabled} @click=${() => this.decide(run, 'accept')}>Accept run</button>
        <button type="button" ?disabled=${disabled} @click=${() => this.decide(run, 'discard')}>Discard run</button>
        ${busy ? html`<span class="review-busy muted">${busy === 'accept' ? 'Accepting…' : 'Discarding…'}</span>` : ''}
      </div>
      <div class="review-reason-box">
        <label for="discard-reason">Reason for discarding (optional)</label>
        <textarea
          id="discard-reason"
          rows="2"
          maxlength=${maxReasonLength}
          aria-describedby="discard-reason-hint"
          .value=${this.reason.runId === run.runId ? this.reason.text : ''}
          ?disabled=${disabled}
          @input=${(event: InputEvent) => (this.reason = { runId: run.runId, text: (event.target as HTMLTextAreaElement).value })}
        ></textarea>
        <p id="discard-reason-hint" class="muted">With a reason, Discard run leaves it as a draft instruction where each change was.</p>
      </div>
      ${this.blocker ? html`<p class="offline-note">${this.blocker}</p>` : ''}
      ${problem ? html`<p class="message error" role="alert">${problem}</p>` : ''}`;
  }

  protected updated(changed: Map<string, unknown>): void {
    const previous = changed.get('run') as RunRecord | null | undefined;
    if (previous && this.run?.runId !== previous.runId && this.decider.decided === previous.runId) {
      this.dispatchEvent(new CustomEvent('review-closed', { bubbles: true }));
    }
    // A run this person decided that is in review again (Undo discard) can be decided again. The
    // mirror may tell of the decision before the request's answer comes, so the run is told
    // apart by its version, not by having left the panel.
    if (this.run && this.decider.decided === this.run.runId && this.run.updatedAt !== this.decidedVersion) {
      this.decider.decided = null;
      this.requestUpdate();
    }
  }

  private decide(run: RunRecord, decision: RunDecision) {
    this.decidedVersion = run.updatedAt;
    const reason = decision === 'discard' && this.reason.runId === run.runId ? this.reason.text : undefined;
    void this.decider.decide(this.token, run.runId, decision, reason);
  }

  private select(runId: string, instructionId: string) {
    this.dispatchEvent(new CustomEvent<ReviewSelectDetail>('review-select', { detail: { runId, instructionId }, bubbles: true }));
  }
}

const itemKey = (run: RunRecord, item: RunItem) => `${run.runId} ${item.instructionId}`;

function countOutcomes(items: readonly RunItem[]): string {
  const parts: string[] = [];
  for (const label of ['Changed', 'Refused', 'Unchanged']) {
    const count = items.filter((item) => outcomeLabels[item.outcome] === label).length;
    if (count) parts.push(`${count} ${label.toLowerCase()}`);
  }
  return parts.join(' · ') || 'nothing';
}

function renderChange(change: RunChange) {
  if (change.op === 'delete_block') {
    return html`<span class="review-op">Deleted</span> ${removed(change.before ?? '')}`;
  }
  if (change.op === 'insert_after' || change.before === null) {
    return html`<span class="review-op">Added</span> ${added(change.after ?? '')}`;
  }
  // A page change's before and after are element HTML: the review diffs what a reader sees (PAGE15).
  const { before, after } = isPageOpKind(change.op) ? pageChangeTexts(document, change.before, change.after) : { before: change.before, after: change.after ?? '' };
  const parts = textDiff(before, after);
  return html`${parts.map((part, index) => renderPart(part, index, parts.length))}`;
}

/** Struck-through and new text, named for screen readers (which do not announce `del` and `ins`). */
const removed = (text: string) => html`<span class="visually-hidden">removed: </span><del>${text}</del>`;
const added = (text: string) => html`<span class="visually-hidden">added: </span><ins>${text}</ins>`;

/** Text that stayed is shortened to the words around the change. */
function renderPart(part: TextDiffPart, index: number, count: number) {
  if (part.kind === 'removed') return removed(part.text);
  if (part.kind === 'added') return added(part.text);
  const text = part.text;
  const keep = 40;
  if (text.length <= keep * 2) return text;
  if (index === 0) return `…${text.slice(-keep)}`;
  if (index === count - 1) return `${text.slice(0, keep)}…`;
  return `${text.slice(0, keep)} … ${text.slice(-keep)}`;
}

customElements.define('tandem-review-panel', TandemReviewPanel);
