import { html, nothing, type PropertyValues } from 'lit';
import { LightElement } from '../light-element.ts';
import type { DocConnection } from '../doc-connection.ts';
import { AnnotationActions, type AnnotationRequest } from '../annotation-actions.ts';
import type { WriteResult } from '../../shared/notes/annotations-writers.ts';
import type { Annotation, AnnotationKind, Author } from '../../shared/notes/annotations.ts';
import type { RunRecord } from '../../shared/protocol/run-record.ts';
import type { AnnotationRights } from '../session.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { elementView, parsePage, type PageElement, type ParsedPage } from '../../shared/page/page-model.ts';
import { elementName, pageChangeTexts } from '../../shared/page/page-change-view.ts';
import { candidateOf, pageChangesOf } from '../../shared/page/page-applier.ts';
import { stagedPageChanges } from '../../shared/page/page-items.ts';
import { pinElement } from '../../shared/page/page-pin.ts';
import { variantCounts } from '../variant-choice.ts';
import { browserPageTools, pageSrcdoc, pickedElementId } from './page-frame.ts';
import { elementIdAttribute } from '../../shared/page/page-tools.ts';
import '../tandem-review-panel.ts';
import '../tandem-annotation-card.ts';
import './tandem-page-source.ts';

type Shown = 'source' | 'candidate';

/**
 * A page (PAGE9): its title, the page in a frame that runs no script (`title="Page"`), `Pick an
 * element` (then a click in the frame, with the hovered element outlined) or the list of
 * elements to choose one from the keyboard, a form that pins a comment or an instruction to the
 * chosen element (with the select `Variants`, how many answers an instruction asks for, 1 to 4,
 * one unless changed: VAR1), the page's notes, and while a run is in review the review panel
 * with a toggle between the source and the run's candidate (changed elements outlined and
 * numbered by instruction). The source is read from the connection's `html` Y.Text and follows
 * it live; the candidate is drawn from the run as the runs mirror has it, so the candidate
 * someone chooses for an item with variants (VAR2) is the one everyone's candidate shows.
 */
export class TandemPageView extends LightElement {
  static properties = {
    connection: { attribute: false },
    annotations: { attribute: false },
    author: { attribute: false },
    rights: { attribute: false },
    review: { attribute: false },
    decideBlocker: {},
    picking: { state: true },
    picked: { state: true },
    shown: { state: true },
    problem: { state: true },
    variants: { state: true },
  };
  declare connection: DocConnection | null;
  declare annotations: readonly Annotation[];
  declare author: Author | null;
  declare rights: AnnotationRights;
  declare review: RunRecord | null;
  declare decideBlocker: string | null;
  declare picking: boolean;
  declare picked: string | null;
  declare shown: Shown;
  declare problem: string;
  /** How many answers an instruction pinned with the form asks for. */
  declare variants: number;

  private observed: DocConnection | null = null;
  private frameDoc: Document | null = null;

  constructor() {
    super();
    this.connection = null;
    this.annotations = [];
    this.author = null;
    this.review = null;
    this.decideBlocker = null;
    this.picking = false;
    this.picked = null;
    this.shown = 'source';
    this.problem = '';
    this.variants = 1;
  }

  disconnectedCallback(): void {
    super.disconnectedCallback();
    this.watch(null);
    this.detachFrame();
  }

  private get source(): string {
    return this.connection ? docParts(this.connection.ydoc).html.toString() : '';
  }

  protected willUpdate(changed: PropertyValues<this>): void {
    this.watch(this.connection);
    // Each element's form starts at one answer.
    if (changed.has('picked')) this.variants = 1;
    if (!this.review && this.shown === 'candidate') this.shown = 'source';
    // Notes pin to elements of the source: no picking in the candidate.
    if (this.shown === 'candidate') this.picking = false;
  }

  /** Re-renders when the source changes (collaborators' edits, an accepted run). */
  private watch(connection: DocConnection | null) {
    if (this.observed === connection) return;
    if (this.observed) docParts(this.observed.ydoc).html.unobserve(this.onSource);
    this.observed = connection;
    if (connection) docParts(connection.ydoc).html.observe(this.onSource);
  }

  private readonly onSource = () => this.requestUpdate();

  /** Element id → its name (`image “A cat”`), for each element of the source without text (PAGE15). */
  private textlessNames(page: ParsedPage): Map<string, string> {
    const names = new Map<string, string>();
    for (const [id, element] of page.byId) {
      if ((element.textContent ?? '').trim() === '') names.set(id, elementName(element));
    }
    return names;
  }

  render() {
    const parsed = parsePage(browserPageTools(), this.source);
    const elements = Array.from(parsed.byId.values(), elementView);
    const names = this.textlessNames(parsed);
    const canPin = this.rights.comment || this.rights.instruct;
    return html`<h1 class="page-title">${this.connection?.title || 'Untitled'}</h1>
      ${this.review
        ? html`<div class="page-preview-toggle" role="group" aria-label="Preview">
              <button type="button" aria-pressed=${this.shown === 'source'} @click=${() => (this.shown = 'source')}>Source</button>
              <button type="button" aria-pressed=${this.shown === 'candidate'} @click=${() => (this.shown = 'candidate')}>Candidate</button>
            </div>
            <tandem-review-panel
              .run=${this.review}
              .blocker=${this.decideBlocker}
              .targetNames=${names}
              @review-select=${() => (this.shown = 'candidate')}
            ></tandem-review-panel>`
        : ''}
      ${canPin ? this.renderPicker(elements) : ''}
      <iframe
        class="page-frame"
        title="Page"
        sandbox="allow-same-origin"
        data-shown=${this.shown}
        .srcdoc=${this.srcdoc()}
        @load=${this.onFrameLoad}
      ></iframe>
      <tandem-page-source .ydoc=${this.connection?.ydoc ?? null} .readOnly=${this.connection?.readOnly ?? true}></tandem-page-source>
      ${this.renderNotes(elements, names, parsed)}`;
  }

  private srcdoc(): string {
    const run = this.review;
    if (this.shown !== 'candidate' || !run) return pageSrcdoc(this.source);
    const changes = stagedPageChanges(run, pageChangesOf(run));
    const numbers = new Map(changes.map((change) => [change.elementId, run.items.findIndex((item) => item.instructionId === change.instructionId) + 1]));
    return pageSrcdoc(candidateOf(browserPageTools(), this.source, changes), numbers);
  }

  private renderPicker(elements: PageElement[]) {
    const picked = elements.find((element) => element.id === this.picked) ?? null;
    return html`<div class="page-picker">
        <button type="button" aria-pressed=${this.picking} ?disabled=${this.shown === 'candidate'} @click=${this.togglePicking}>
          Pick an element
        </button>
        <label
          >Element
          <select @change=${this.onChoose} .value=${this.picked ?? ''}>
            <option value="">Choose an element…</option>
            ${elements.map((element) => html`<option value=${element.id}>${describe(element)}</option>`)}
          </select>
        </label>
        ${this.picking ? html`<span class="muted" role="status">Click an element of the page</span>` : ''}
      </div>
      ${picked ? this.renderPinForm(picked) : ''}`;
  }

  private renderPinForm(element: PageElement) {
    return html`<form class="page-pin" aria-label="Note on an element" @submit=${(event: Event) => event.preventDefault()}>
      <p>On <code>&lt;${element.tag}&gt;</code> ${element.text ? html`«${element.text}»` : ''}</p>
      <textarea aria-label="Note" rows="2" maxlength="10000"></textarea>
      ${this.rights.instruct ? this.renderVariants() : ''}
      ${this.problem ? html`<p class="note-error" role="alert">${this.problem}</p>` : ''}
      <div class="note-buttons">
        <button type="button" class="quiet" @click=${() => (this.picked = null)}>Cancel</button>
        ${this.rights.comment ? html`<button type="button" @click=${() => this.pin('comment', element)}>Comment</button>` : ''}
        ${this.rights.instruct ? html`<button type="button" class="primary" @click=${() => this.pin('instruction', element)}>Instruct</button>` : ''}
      </div>
    </form>`;
  }

  /** The select `Variants` of the pin form: how many answers `Instruct` asks for (VAR1). */
  private renderVariants() {
    return html`<p class="draft-variants">
      <label for="page-pin-variants">Variants</label>
      <select id="page-pin-variants" .value=${String(this.variants)} @change=${(event: Event) => (this.variants = Number((event.target as HTMLSelectElement).value))}>
        ${variantCounts.map((count) => html`<option value=${count} ?selected=${count === this.variants}>${count}</option>`)}
      </select>
      <span class="muted">answers to an instruction, for you to choose from</span>
    </p>`;
  }

  /** The page's notes as the text's cards, with the same actions (PAGE14). */
  private renderNotes(elements: PageElement[], names: ReadonlyMap<string, string>, parsed: ParsedPage) {
    if (this.annotations.length === 0) return nothing;
    const tags = new Map(elements.map((element) => [element.id, element.tag]));
    return html`<ul class="page-notes" aria-label="Notes">
      ${this.annotations.map(
        (note) => html`<li class="page-note kind-${note.kind}" data-annotation-id=${note.id}>
          <span class="muted">On <code>&lt;${tags.get(note.blockId) ?? 'removed'}&gt;</code></span>
          <tandem-annotation-card
            .annotation=${note}
            .perform=${this.perform}
            .targetName=${names.get(note.blockId) ?? null}
            .discardedText=${note.kind === 'instruction' && note.discardedChange !== undefined ? discardedText(note.discardedChange, parsed) : null}
          ></tandem-annotation-card>
        </li>`,
      )}
    </ul>`;
  }

  /** Carries out a card's request: `select` shows the element in the frame, the others write the notes. */
  private readonly perform = (request: AnnotationRequest): WriteResult => {
    if (request.type === 'select') {
      const note = this.annotations.find((each) => each.id === request.id);
      if (note) this.showElement(note.blockId);
      return { ok: true };
    }
    const connection = this.connection;
    if (!connection || !this.author) return { ok: false, error: { code: 'NOT_FOUND', message: 'The notes are not open.' } };
    return new AnnotationActions(connection.notes.ydoc, this.author).apply(request);
  };

  /** Outlines the element `id` in the frame and scrolls it into view. */
  private showElement(id: string) {
    this.clearHover();
    const element = this.frameDoc?.querySelector(`[data-tandem-id="${CSS.escape(id)}"]`);
    element?.setAttribute('data-tandem-hover', '');
    element?.scrollIntoView({ block: 'nearest' });
  }

  private togglePicking() {
    this.picking = !this.picking;
    if (!this.picking) this.clearHover();
  }

  private onChoose(event: Event) {
    this.picked = (event.target as HTMLSelectElement).value || null;
    this.problem = '';
  }

  private pin(kind: AnnotationKind, element: PageElement) {
    const connection = this.connection;
    const text = this.querySelector<HTMLTextAreaElement>('.page-pin textarea')?.value.trim() ?? '';
    if (!connection || !this.author) return;
    if (text === '') {
      this.problem = 'Write something first.';
      return;
    }
    const pin = pinElement(connection.ydoc, element);
    const result = pin ? new AnnotationActions(connection.notes.ydoc, this.author).create(kind, pin, text, this.variants) : null;
    if (!result?.ok) {
      this.problem = result ? result.error.message : 'This element is no longer in the page.';
      return;
    }
    this.picked = null;
    this.problem = '';
  }

  /** Listens to the frame's document (same origin, no script of its own) for picking. */
  private onFrameLoad(event: Event) {
    this.detachFrame();
    const frameDoc = (event.target as HTMLIFrameElement).contentDocument;
    if (!frameDoc) return;
    this.frameDoc = frameDoc;
    frameDoc.addEventListener('mouseover', this.onHover);
    frameDoc.addEventListener('click', this.onFrameClick, true);
    for (const type of unfollowedEvents) frameDoc.addEventListener(type, cancel, true);
  }

  private detachFrame() {
    this.frameDoc?.removeEventListener('mouseover', this.onHover);
    this.frameDoc?.removeEventListener('click', this.onFrameClick, true);
    for (const type of unfollowedEvents) this.frameDoc?.removeEventListener(type, cancel, true);
    this.frameDoc = null;
  }

  private readonly onHover = (event: Event) => {
    this.clearHover();
    if (!this.picking) return;
    const id = pickedElementId(event.target);
    if (id) this.frameDoc?.querySelector(`[data-tandem-id="${CSS.escape(id)}"]`)?.setAttribute('data-tandem-hover', '');
  };

  /** A click in the frame (a link's Enter key included) never follows a link; while picking it chooses the element. */
  private readonly onFrameClick = (event: Event) => {
    event.preventDefault();
    if (!this.picking) return;
    const id = pickedElementId(event.target);
    if (!id) return;
    this.picking = false;
    this.clearHover();
    this.picked = id;
    this.problem = '';
    void this.updateComplete.then(() => this.querySelector<HTMLTextAreaElement>('.page-pin textarea')?.focus());
  };

  private clearHover() {
    for (const element of Array.from(this.frameDoc?.querySelectorAll('[data-tandem-hover]') ?? [])) element.removeAttribute('data-tandem-hover');
  }
}

/**
 * The frame's events besides `click` whose default action navigates (PAGE9): a middle click
 * (`auxclick`, which opens a link in a new tab) and a form's submission. A link's Enter key
 * reaches it as a `click`. Cancelled in the capture phase, before anything in the frame sees them.
 */
const unfollowedEvents = ['auxclick', 'submit'] as const;

const cancel = (event: Event) => event.preventDefault();

/**
 * A discarded page change (the HTML of the elements the run wrote, server/runs/discard-reason.ts)
 * against the elements of the source now, shown as the review shows a change (PAGE15): the
 * text, else the start tag, else the markup; an element without any of these by its name.
 */
function discardedText(change: string, source: ParsedPage): string {
  const template = document.createElement('template');
  template.innerHTML = change;
  return Array.from(template.content.children, (element) => {
    const now = source.byId.get(element.getAttribute(elementIdAttribute) ?? '');
    return pageChangeTexts(document, now?.outerHTML ?? null, element.outerHTML).after || elementName(element);
  }).join(' · ');
}

function describe(element: PageElement): string {
  const text = element.text.length > 60 ? element.text.slice(0, 59) + '…' : element.text;
  return text ? `<${element.tag}> ${text}` : `<${element.tag}>`;
}

customElements.define('tandem-page-view', TandemPageView);
