import { html } from 'lit';
import { LightElement } from './light-element.ts';
import { repeat } from 'lit/directives/repeat.js';
import { ContextConsumer } from '@lit/context';
import type { Annotation } from '../shared/notes/annotations.ts';
import type { Placement } from './annotation-plugin.ts';
import { consumeAnnotationRights } from './session-context.ts';
import type { RunRecord } from '../shared/protocol/run-record.ts';
import { sentWorkOrder } from './run-status.ts';
import type { PerformAnnotationRequest } from './tandem-annotation-card.ts';
import { OlderWorkOrders } from './older-work-orders.ts';
import { sessionContext } from './session-context.ts';
import './tandem-annotation-card.ts';

/**
 * The margin: one card per annotation, in the order of their text (annotations whose text is
 * gone or not here yet come last, then resolved ones). Brings the card in focus into view.
 * The work order a sent instruction went with comes from its run in the `<id>/runs` mirror; for
 * a run the mirror no longer holds it is read over HTTP once that instruction's card is active.
 */
export class TandemAnnotationPanel extends LightElement {
  static properties = {
    annotations: { attribute: false },
    placements: { attribute: false },
    active: {},
    perform: { attribute: false },
    runs: { attribute: false },
  };
  declare annotations: readonly Annotation[];
  declare placements: ReadonlyMap<string, Placement>;
  /** The document's runs, for the work order each sent instruction went with. */
  declare runs: readonly RunRecord[];
  declare active: string | null;
  /** Carries out each card's requests (see tandem-annotation-card.ts). */
  declare perform: PerformAnnotationRequest | undefined;

  constructor() {
    super();
    this.annotations = [];
    this.placements = new Map();
    this.active = null;
    this.perform = undefined;
    this.runs = [];
  }

  /** What this person may do with the document's annotations (from `<tandem-doc-view>`). */
  private readonly rights = consumeAnnotationRights(this);
  private readonly sessionFrom = new ContextConsumer(this, { context: sessionContext, subscribe: true });
  private readonly olderWorkOrders = new OlderWorkOrders(this, () => this.sessionFrom.value?.token ?? '');

  protected willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('active')) this.olderWorkOrders.retryFailed();
  }

  /** The work order `a` went with, if it is a sent instruction whose run is known here. */
  private sentText(a: Annotation): string | null {
    const mirrored = sentWorkOrder(this.runs, a);
    if (mirrored !== null || a.kind !== 'instruction' || a.runId === null || a.id !== this.active) return mirrored;
    if (this.runs.some((run) => run.runId === a.runId)) return null;
    return this.olderWorkOrders.workOrder(a.runId, a.id);
  }

  render() {
    const ordered = orderForMargin(this.annotations, this.placements);
    const byId = new Map(this.annotations.map((a) => [a.id, a]));
    const derived = (id: string) => this.annotations.filter((a) => a.kind === 'instruction' && a.fromCommentId === id);
    const hint = this.rights().instruct
      ? 'Select text to add a comment or an instruction.'
      : this.rights().comment
        ? 'Select text to add a comment.'
        : 'No comments or instructions yet.';
    return html`<section class="annotation-panel" aria-label="Comments and instructions">
      <h2 class="panel-title">Comments and instructions <span class="muted">${this.annotations.length || ''}</span></h2>
      ${ordered.length === 0 ? html`<p class="panel-empty muted">${hint}</p>` : ''}
      ${repeat(
        ordered,
        (a) => a.id,
        (a) => html`<tandem-annotation-card
          .annotation=${a}
          .placement=${this.placements.get(a.id)}
          .active=${a.id === this.active}
          .perform=${this.perform}
          .source=${a.kind === 'instruction' && a.fromCommentId ? (byId.get(a.fromCommentId) ?? null) : null}
          .derived=${a.kind === 'comment' ? derived(a.id) : []}
          .sentText=${this.sentText(a)}
        ></tandem-annotation-card>`,
      )}
    </section>`;
  }

  protected updated(changed: Map<string, unknown>): void {
    if (!changed.has('active') || !this.active) return;
    const card = this.querySelector(`.annotation-card[data-annotation-id="${CSS.escape(this.active)}"]`);
    card?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }
}

/** Cards in reading order: attached by position, then the rest; resolved ones last. */
export function orderForMargin(annotations: readonly Annotation[], placements: ReadonlyMap<string, Placement>): Annotation[] {
  const rank = (a: Annotation) => {
    const placed = placements.get(a.id);
    return [a.resolved ? 1 : 0, placed?.status === 'attached' ? placed.from : Number.MAX_SAFE_INTEGER, a.createdAt] as const;
  };
  return [...annotations].sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    return ra[0] - rb[0] || ra[1] - rb[1] || ra[2] - rb[2];
  });
}

customElements.define('tandem-annotation-panel', TandemAnnotationPanel);
