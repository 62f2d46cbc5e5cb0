import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { EditorState, type Command, type Transaction } from 'prosemirror-state';
import { EditorView } from 'prosemirror-view';
import * as Y from 'yjs';
import { getRelativeSelection, initProseMirrorDoc, ySyncPluginKey, yXmlFragmentToProseMirrorRootNode, type ProsemirrorBinding } from 'y-prosemirror';
import { schema } from '../shared/model/schema.ts';
import { docParts } from '../shared/model/doc-layout.ts';
import { stripUnreadable, unreadableChange, unreadableContent, updateYFragmentKeepingUnknown } from '../shared/model/unknown-content.ts';
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
 *
 * VER7: y-prosemirror deletes what the schema cannot build, so text that holds content of a
 * newer build that this one cannot hold faithfully is never bound: the view is then a read-only
 * copy, built from a scratch copy of the Y.Doc. The check runs before binding and before every
 * remote change reaches the binding (Yjs's `beforeObserverCalls`, ahead of the observers): a
 * change that brings such content unbinds the view first, so the binding never reads it.
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
  /** True while the view is a read-only copy (VER7): it never becomes editable. */
  private frozen = false;
  private watched: Y.Doc | null = null;

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
    if (this.view && !this.frozen && this.view.editable === this.host.readOnly) {
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
    const unreadable = unreadableContent(yfragment, schema);
    if (unreadable !== null) {
      this.freeze(connection, unreadable);
      return;
    }
    this.watched = connection.ydoc;
    connection.ydoc.on('beforeObserverCalls', this.beforeObservers);
    const { doc, mapping } = initProseMirrorDoc(yfragment, schema);
    const state = EditorState.create({
      doc,
      plugins: editorPlugins(yfragment, mapping, connection.awareness, {
        allows: (kind) => host.kinds.includes(kind),
        resolve: (current, anchors) => this.placer?.resolve(current, anchors) ?? anchors.map(() => notSynced),
        pin: this.pin,
        repin: (id, pin) => host.repin(id, pin),
      }, { docId: connection.docId, token: connection.token }),
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
    keepUnknownBlocks(this.view);
  }

  /** Unbinds the view, before the binding's observer runs, when a remote change brings unreadable content. */
  private readonly beforeObservers = (transaction: Y.Transaction) => {
    const connection = this.boundTo;
    if (transaction.local || !connection || this.frozen) return;
    const unreadable = unreadableChange(transaction, docParts(connection.ydoc).content, schema);
    if (unreadable === null) return;
    this.destroyView();
    this.boundTo = connection;
    this.freeze(connection, unreadable);
  };

  /** Shows a read-only copy of the text, projected from a scratch Y.Doc (where deleting harms nothing). */
  private freeze(connection: DocConnection, reason: string): void {
    this.frozen = true;
    const scratch = new Y.Doc();
    Y.applyUpdate(scratch, Y.encodeStateAsUpdate(connection.ydoc));
    stripUnreadable(docParts(scratch).content, schema);
    const doc = yXmlFragmentToProseMirrorRootNode(docParts(scratch).content, schema);
    scratch.destroy();
    this.view = new EditorView(this.mount, {
      state: EditorState.create({ doc }),
      editable: () => false,
      attributes: { 'aria-label': 'Document', role: 'textbox', 'aria-multiline': 'true', 'aria-readonly': 'true', class: 'document-text' },
    });
    connection.holdsUnreadable(reason);
    this.host.requestUpdate();
  }

  private destroyView(): void {
    this.watched?.off('beforeObserverCalls', this.beforeObservers);
    this.watched = null;
    this.frozen = false;
    // Destroying the view runs the plugins' destroy hooks: the binding stops observing the
    // Y.XmlFragment and the cursor plugin clears this person's cursor from awareness.
    this.view?.destroy();
    this.view = null;
    this.boundTo = null;
    this.placer = null;
  }
}

/**
 * VER6: the binding writes every change of the view as `updateYFragmentKeepingUnknown` does, so
 * that an edit on both sides of a newer build's block never replaces that block's element.
 * y-prosemirror's own `_prosemirrorChanged` is this with `updateYFragment`.
 */
function keepUnknownBlocks(view: EditorView): void {
  const binding = (ySyncPluginKey.getState(view.state) as { binding?: ProsemirrorBinding } | undefined)?.binding;
  if (!binding) return;
  binding._prosemirrorChanged = (doc) => {
    binding.doc.transact(() => {
      updateYFragmentKeepingUnknown(binding.doc, binding.type, doc, binding);
      binding.beforeTransactionSelection = getRelativeSelection(binding, binding.prosemirrorView.state);
    }, ySyncPluginKey);
  };
}
