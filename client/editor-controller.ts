import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { EditorState, type Command, type Transaction } from 'prosemirror-state';
import { EditorView } from 'prosemirror-view';
import { initProseMirrorDoc } from 'y-prosemirror';
import { schema } from '../shared/model/schema.ts';
import { docParts } from '../shared/model/doc-layout.ts';
import type { DocConnection } from './doc-connection.ts';
import { editorPlugins } from './editor-plugins.ts';
import type { PinnedRange } from '../shared/model/anchors.ts';
import type { Annotation, AnnotationKind } from '../shared/notes/annotations.ts';
import { setAnnotationsTr, type Placement } from './annotation-plugin.ts';
import type { AnnotationPlacer } from './annotation-placer.ts';
import { setRunsTr } from './review-plugin.ts';
import { loadDocumentRecords } from './later-elements.ts';
import type { RunRecord } from '../shared/protocol/run-record.ts';

export interface EditorHost extends ReactiveControllerHost {
  connection: DocConnection | null;
  readOnly: boolean;
  /** The annotations of the notes Y.Doc; a new array whenever they change. */
  annotations: readonly Annotation[];
  /** The runs whose changes are shown numbered in the text; a new array whenever they change. */
  runs: readonly Pick<RunRecord, 'runId' | 'state' | 'items'>[];
  /** The kinds of annotation this person may create from a selection. */
  kinds: readonly AnnotationKind[];
  /** Stores a new pin for an annotation (see annotation-plugin.ts). */
  repin(id: string, pin: PinnedRange): void;
}

const notSynced: Placement = { status: 'orphaned', reason: 'not-synced' };

/**
 * Owns the ProseMirror view of its host's connection: created when the host is connected (or
 * when a connection arrives), destroyed when the host is disconnected or the connection
 * changes. The view lives in `mount`, which the host renders. The annotations reach the view
 * once the code that places them in the text has loaded (client/document-records.ts); the text
 * does not wait for it.
 */
export class EditorController implements ReactiveController {
  readonly mount = document.createElement('div');
  view: EditorView | null = null;
  private boundTo: DocConnection | null = null;
  /** Where the annotations sit in the bound text; null until its code has loaded. */
  private placer: AnnotationPlacer | null = null;
  private connected = false;
  private annotationsSent: readonly Annotation[] | null = null;
  private runsSent: EditorHost['runs'] | null = null;

  constructor(private readonly host: EditorHost) {
    this.mount.className = 'editor-mount';
    host.addController(this);
  }

  get state(): EditorState | null {
    return this.view?.state ?? null;
  }

  hostConnected(): void {
    this.connected = true;
    this.sync();
  }

  hostUpdated(): void {
    this.sync();
  }

  hostDisconnected(): void {
    this.connected = false;
    this.destroyView();
  }

  /** Runs a command on the view (toolbar buttons), then gives the focus back to the text. */
  run(command: Command): boolean {
    const view = this.view;
    if (!view || !view.editable) return false;
    const done = command(view.state, view.dispatch);
    view.focus();
    return done;
  }

  /** A new pin for `from`–`to` of `state`'s text; null when none can be made (or not yet). */
  readonly pin = (state: EditorState, from: number, to: number): PinnedRange | null => this.placer?.pin(state, from, to) ?? null;

  /** Runs a command that changes no text (annotations, selection); read-only views take it too. */
  apply(command: Command, { focus = false } = {}): boolean {
    const view = this.view;
    if (!view) return false;
    const done = command(view.state, view.dispatch);
    if (focus) view.focus();
    return done;
  }

  private sync(): void {
    const connection = this.connected ? this.host.connection : null;
    if (connection !== this.boundTo) {
      this.destroyView();
      if (connection) this.createView(connection);
    }
    if (this.view && this.view.editable === this.host.readOnly) {
      this.view.setProps({ editable: () => !this.host.readOnly });
    }
    const view = this.view;
    if (view && this.placer && this.host.annotations !== this.annotationsSent) {
      this.annotationsSent = this.host.annotations;
      view.dispatch(setAnnotationsTr(view.state.tr, this.host.annotations));
    }
    if (view && this.host.runs !== this.runsSent) {
      this.runsSent = this.host.runs;
      view.dispatch(setRunsTr(view.state.tr, this.host.runs));
    }
  }

  private createView(connection: DocConnection): void {
    this.boundTo = connection;
    this.annotationsSent = null;
    this.runsSent = null;
    this.placer = null;
    const host = this.host;
    const placed = (tr: Transaction, before: EditorState) => this.placer?.place(tr, before) ?? tr;
    void loadDocumentRecords().then(({ AnnotationPlacer }) => {
      if (this.boundTo !== connection) return;
      this.placer = new AnnotationPlacer(connection.ydoc);
      host.requestUpdate();
    });
    // The first state holds the text Yjs has now, with the binding's mapping: the binding then
    // has nothing to render when its view starts (a forced render would select position 0 of a
    // document that may have no text block yet).
    const yfragment = docParts(connection.ydoc).content;
    const { doc, mapping } = initProseMirrorDoc(yfragment, schema);
    const state = EditorState.create({
      doc,
      plugins: editorPlugins(yfragment, mapping, connection.awareness, {
        allows: (kind) => host.kinds.includes(kind),
        resolve: (current, anchors) => this.placer?.resolve(current, anchors) ?? anchors.map(() => notSynced),
        pin: this.pin,
        repin: (id, pin) => host.repin(id, pin),
      }),
    });
    this.view = new EditorView(this.mount, {
      state,
      editable: () => !this.host.readOnly,
      attributes: () => ({
        'aria-label': 'Document',
        role: 'textbox',
        'aria-multiline': 'true',
        'aria-readonly': String(this.host.readOnly),
        class: 'document-text',
      }),
      // `this` is the view, which exists already while its constructor runs the plugins' views
      // (the binding's first render dispatches from there). Text from Yjs and new annotations
      // get their placements here, as meta, before the state applies them.
      dispatchTransaction(this: EditorView, tr: Transaction) {
        // y-prosemirror 1.3 dispatches cursor updates on a timer it does not cancel when the
        // view is destroyed (its binding never sets the `isDestroyed` it checks).
        if (this.isDestroyed) return;
        this.updateState(this.state.apply(placed(tr, this.state)));
        host.requestUpdate();
      },
    });
  }

  private destroyView(): void {
    // Destroying the view runs the plugins' destroy hooks: the binding stops observing the
    // Y.XmlFragment and the cursor plugin clears this person's cursor from awareness.
    this.view?.destroy();
    this.view = null;
    this.boundTo = null;
    this.placer = null;
  }
}
