import { html } from 'lit';
import { LightElement } from './light-element.ts';
import type { DocConnection } from './doc-connection.ts';
import { EditorController } from './editor-controller.ts';
import type { ToolbarItem } from './editor-commands.ts';
import type { PinnedRange } from '../shared/model/anchors.ts';
import type { Annotation, AnnotationKind, Author } from '../shared/notes/annotations.ts';
import type { AnnotationActions } from './annotation-actions.ts';
import { annotationsKey, type AnnotationsState } from './annotation-plugin.ts';
import { closeDraft, focusAnnotation, openDraft, selectAnnotation } from './annotation-commands.ts';
import type { AnnotationRequest } from './annotation-actions.ts';
import type { WriteResult } from '../shared/notes/annotations-writers.ts';
import { consumeAnnotationRights } from './session-context.ts';
import type { RunRecord } from '../shared/protocol/run-record.ts';
import { selectChange } from './review-plugin.ts';
import type { ReviewSelectDetail } from './tandem-review-panel.ts';
import type { DraftSave } from './tandem-selection-actions.ts';
import './tandem-toolbar.ts';
import type { TandemToolbar } from './tandem-toolbar.ts';
import './tandem-link-popover.ts';
import { FindController } from './find-controller.ts';
import { AuthorController } from './author-controller.ts';
import { ImageController } from './image-controller.ts';
import { applyLink, closeLinkEditor, linkAt, linkKey, openInNewTab, openLinkAtCaret, openLinkEditor, removeLink } from './link-plugin.ts';
import { linkAddressFromInput, safeLinkHref } from '../shared/model/safe-url.ts';
import { outstandingRun } from './run-status.ts';
import { YDocReader } from './ydoc-reader.ts';
import { loadDocumentRecords, type DocumentRecords } from './later-elements.ts';

/**
 * The rich-text editor of one document: a toolbar over the ProseMirror view bound to the
 * connection's Y.Doc, the highlights and the margin of its annotations, the buttons that pin
 * new ones to selected text, and the review of a run (numbered changes in the text, the
 * review panel above the margin). Read-only views have no toolbar.
 */
export class TandemEditor extends LightElement {
  static properties = {
    connection: { attribute: false },
    readOnly: { type: Boolean },
    annotations: { attribute: false },
    author: { attribute: false },
    runs: { attribute: false },
    review: { attribute: false },
    decideBlocker: {},
    draftError: { state: true },
    linkError: { state: true },
  };
  declare connection: DocConnection | null;
  declare readOnly: boolean;
  declare annotations: readonly Annotation[];
  declare author: Author | null;
  /** The document's runs; their changes in the text are numbered by instruction. */
  declare runs: readonly RunRecord[];
  /** The run in review, or null. */
  declare review: RunRecord | null;
  declare decideBlocker: string | null;
  declare draftError: string;
  /** Why the address in the link box was refused; empty when it was not. */
  declare linkError: string;

  private readonly rights = consumeAnnotationRights(this);
  private readonly editor = new EditorController(this);
  private readonly find = new FindController(this, this.editor);
  private readonly authors = new AuthorController(this, this.editor);
  private readonly images = new ImageController(this, this.editor);
  /**
   * Blocks the runs deleted that people changed since: the review panel says Accept keeps them.
   * Read only while a run is in review, the one time the panel shows them: reading walks every
   * block of the text, which at each keystroke in a long document costs milliseconds.
   */
  private readonly notApplied = new YDocReader<ReadonlyMap<string, string[]>>(
    this,
    () => (this.review ? (this.connection?.ydoc ?? null) : null),
    loadDocumentRecords().then(({ readNotApplied }) => (ydoc) => readNotApplied(ydoc, this.connection?.awareness ?? null)),
    new Map(),
  );
  /** The code of the annotation writers, once loaded (client/document-records.ts). */
  private records: DocumentRecords | null = null;
  /** Whether the person is working in the text (the selection buttons show only then). */
  private inText = false;
  private actionsFor: { notes: unknown; author: Author | null; actions: AnnotationActions } | null = null;
  private orphanedTold = '';

  constructor() {
    super();
    this.connection = null;
    this.readOnly = false;
    this.annotations = [];
    this.author = null;
    this.runs = [];
    this.review = null;
    this.decideBlocker = null;
    this.draftError = '';
    this.linkError = '';
    void loadDocumentRecords().then((records) => (this.records = records));
  }

  /** The kinds this person may create from a selection now. */
  get kinds(): AnnotationKind[] {
    const rights = this.rights();
    const kinds: AnnotationKind[] = [];
    if (rights.comment) kinds.push('comment');
    if (rights.instruct) kinds.push('instruction');
    return kinds;
  }

  /** Puts the caret in the text (e.g. after Enter in the title). */
  focusText(): void {
    this.editor.view?.focus();
  }

  repin(id: string, pin: PinnedRange): void {
    this.actions?.repin(id, pin);
  }

  connectedCallback(): void {
    super.connectedCallback();
    document.addEventListener('pointerdown', this.onWhereabouts, true);
    document.addEventListener('focusin', this.onWhereabouts, true);
  }

  disconnectedCallback(): void {
    super.disconnectedCallback();
    document.removeEventListener('pointerdown', this.onWhereabouts, true);
    document.removeEventListener('focusin', this.onWhereabouts, true);
  }

  private get actions(): AnnotationActions | null {
    const notes = this.connection?.notes.ydoc;
    if (!notes || !this.author || !this.records) return null;
    const cached = this.actionsFor;
    if (cached && cached.notes === notes && cached.author === this.author) return cached.actions;
    const actions = new this.records.AnnotationActions(notes, this.author);
    this.actionsFor = { notes, author: this.author, actions };
    return actions;
  }

  private get frame(): HTMLElement | null {
    return this.querySelector('.text-frame');
  }

  render() {
    const state = this.editor.state;
    const annotations = state ? annotationsKey.getState(state) : undefined;
    return html`<div class="editor-surface">
      <div class="editor-column">
        ${this.readOnly
          ? html`<p class="read-only-note">${readOnlyNote(this.rights().comment)}</p>`
          : html`<tandem-toolbar .state=${state} @toolbar-command=${this.onCommand} @toolbar-escape=${() => this.focusText()}></tandem-toolbar>`}
        ${this.authors.render()} ${this.find.render()} ${this.readOnly ? '' : this.images.render()}
        <div class="text-frame" @toolbar-focus-requested=${this.onToolbarFocus}>${this.editor.mount} ${this.renderLinkPopover()} ${this.renderSelectionActions(annotations)}</div>
      </div>
      <div class="side-column">
        <tandem-run-activity .run=${outstandingRun(this.runs)}></tandem-run-activity>
        <tandem-review-panel
          .run=${this.review}
          .blocker=${this.decideBlocker}
          .notApplied=${this.notApplied.value}
          @review-select=${this.onReviewSelect}
          @review-closed=${() => this.focusText()}
        ></tandem-review-panel>
        <tandem-recent-runs .runs=${this.runs} .blocker=${this.decideBlocker}></tandem-recent-runs>
        <tandem-annotation-panel
          .annotations=${annotations?.annotations ?? []}
          .placements=${annotations?.placements ?? new Map()}
          .active=${annotations?.active ?? null}
          .perform=${this.perform}
          .runs=${this.runs}
        ></tandem-annotation-panel>
      </div>
    </div>`;
  }

  /**
   * Tells the page (`annotations-orphaned`, detail: a set of ids) which annotations' text is
   * deleted, whenever that set changes.
   */
  protected updated(): void {
    const state = this.editor.state;
    const placements = state ? annotationsKey.getState(state)?.placements : undefined;
    if (!placements) return;
    const orphaned = new Set<string>();
    placements.forEach((placed, id) => {
      if (placed.status === 'orphaned' && placed.reason === 'deleted') orphaned.add(id);
    });
    const key = [...orphaned].sort().join(' ');
    if (key === this.orphanedTold) return;
    this.orphanedTold = key;
    this.dispatchEvent(new CustomEvent('annotations-orphaned', { detail: orphaned }));
  }

  private renderSelectionActions(annotations: AnnotationsState | undefined) {
    const view = this.editor.view;
    const kinds = this.kinds;
    if (!view || !annotations || kinds.length === 0) return '';
    const draft = annotations.draft;
    const selection = view.state.selection;
    if (linkKey.getState(view.state)?.editing) return '';
    if (!draft && (selection.empty || !this.inText)) return '';
    const at = draft?.placement.status === 'attached' ? draft.placement.to : draft ? null : selection.to;
    return html`<tandem-selection-actions
      .kinds=${kinds}
      .drafting=${draft?.kind ?? null}
      .position=${this.positionBelow(at)}
      .error=${this.draftError}
      @draft-open=${(event: CustomEvent<AnnotationKind>) => this.openDraft(event.detail)}
      @draft-save=${(event: CustomEvent<DraftSave>) => this.saveDraft(event.detail)}
      @draft-cancel=${() => this.endDraft(true)}
      @draft-dismiss=${() => this.focusText()}
    ></tandem-selection-actions>`;
  }

  /**
   * The link box while it is open; otherwise, while an editor is in the text with the caret in a
   * link, that link's buttons (placed after the text, so Tab reaches them from it).
   */
  private renderLinkPopover() {
    const state = this.editor.state;
    if (!state) return '';
    const editing = linkKey.getState(state)?.editing;
    if (editing) {
      return html`<tandem-link-popover
        editing
        .href=${editing.href}
        .error=${this.linkError}
        .position=${this.positionBelow(editing.to)}
        @link-apply=${(event: CustomEvent<string>) => this.applyLinkAddress(event.detail)}
        @link-input=${() => (this.linkError = '')}
        @link-cancel=${(event: CustomEvent<boolean>) => this.cancelLink(event.detail)}
      ></tandem-link-popover>`;
    }
    // A read-only view opens a link on a click (client/link-plugin.ts): no buttons cover the text.
    const link = state.selection.empty && this.inText && !this.readOnly ? linkAt(state) : null;
    if (!link) return '';
    return html`<tandem-link-popover
      .href=${safeLinkHref(link.href) ?? ''}
      canEdit
      .position=${this.positionBelow(link.to)}
      @link-open=${() => this.editor.apply(openLinkAtCaret(openInNewTab))}
      @link-edit=${() => this.editor.run(openLinkEditor)}
      @link-remove=${() => this.editor.run(removeLink)}
      @link-dismiss=${() => this.focusText()}
    ></tandem-link-popover>`;
  }

  /** Enter in the link box: links its text to the address, or says why the address is refused. */
  private applyLinkAddress(input: string) {
    const state = this.editor.state;
    const editing = state ? linkKey.getState(state)?.editing : null;
    if (!editing) return;
    // An emptied box of an existing link takes the link away.
    if (input.trim() === '' && editing.href !== '') {
      this.linkError = '';
      this.editor.run(removeLink);
      return;
    }
    const address = linkAddressFromInput(input);
    if (!address.ok) {
      this.linkError = address.message;
      return;
    }
    this.linkError = '';
    this.editor.run(applyLink(address.href));
  }

  private cancelLink(refocus: boolean) {
    this.linkError = '';
    this.editor.apply(closeLinkEditor(refocus), { focus: refocus });
  }

  /** Pixels inside the text frame just below `pos` (its top left corner when null). */
  private positionBelow(pos: number | null): { left: number; top: number } {
    const view = this.editor.view;
    const frame = this.frame;
    if (!view || !frame || pos === null) return { left: 16, top: 16 };
    try {
      const coords = view.coordsAtPos(pos);
      const box = frame.getBoundingClientRect();
      const width = Math.min(340, box.width);
      return {
        left: Math.max(0, Math.min(coords.left - box.left - 24, box.width - width)),
        top: coords.bottom - box.top + 6,
      };
    } catch {
      return { left: 16, top: 16 };
    }
  }

  private openDraft(kind: AnnotationKind) {
    const connection = this.connection;
    if (!connection) return;
    this.draftError = '';
    this.editor.apply(openDraft(kind, this.editor.pin));
  }

  private saveDraft({ text, variants }: DraftSave) {
    const state = this.editor.state;
    const draft = state ? annotationsKey.getState(state)?.draft : null;
    const actions = this.actions;
    if (!draft || !actions) return;
    const result = actions.create(draft.kind, draft.pin, text, variants);
    if (!result.ok) {
      this.draftError = result.error.message;
      return;
    }
    this.endDraft(false);
    this.editor.apply(focusAnnotation(result.id));
  }

  private endDraft(restoreSelection: boolean) {
    this.draftError = '';
    this.editor.apply(closeDraft(restoreSelection), { focus: true });
  }

  /** Carries out a card's request (passed down to every card; the same function for the element's life). */
  private readonly perform = (request: AnnotationRequest): WriteResult => {
    if (request.type === 'select') {
      this.editor.apply(selectAnnotation(request.id), { focus: true });
      return { ok: true };
    }
    const result = this.actions?.apply(request);
    if (result?.ok && request.type === 'escalate' && 'id' in result) this.editor.apply(focusAnnotation(result.id as string));
    return result ?? { ok: false, error: { code: 'NOT_FOUND', message: 'The notes are not open.' } };
  };

  private onReviewSelect(event: CustomEvent<ReviewSelectDetail>) {
    const { runId, instructionId } = event.detail;
    this.editor.apply(selectChange(runId, instructionId), { focus: true });
  }

  /** Alt+F10 in the text (client/toolbar-focus.ts): the focus goes to the toolbar. */
  private readonly onToolbarFocus = () => {
    this.querySelector<TandemToolbar>('tandem-toolbar')?.focusFirstButton();
  };

  private onCommand(event: CustomEvent<ToolbarItem>) {
    this.editor.run(event.detail.command);
  }

  /** Notes whether the last pointer press or focus landed in the text (or its popover). */
  private readonly onWhereabouts = (event: Event) => {
    const frame = this.frame;
    const inText = !!frame && event.composedPath().includes(frame);
    if (inText === this.inText) return;
    this.inText = inText;
    this.requestUpdate();
  };
}

/** What a person who may not change the text can do here, in the banner above it. */
function readOnlyNote(canComment: boolean): string {
  return canComment ? 'You can comment on this document but not change it.' : 'You can read this document but not change it.';
}

customElements.define('tandem-editor', TandemEditor);
