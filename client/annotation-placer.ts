import type * as Y from 'yjs';
import type { EditorState, Transaction } from 'prosemirror-state';
import { ySyncPluginKey } from 'y-prosemirror';
import { anchorFromRange, resolveAnchors, type Anchor, type PinnedRange } from '../shared/model/anchors.ts';
import { docParts } from '../shared/model/doc-layout.ts';
import { annotationsKey, bindingMapping, placedKey, type AnnotationsMeta, type Placed, type Placement } from './annotation-plugin.ts';

/**
 * Where the annotations sit in the text, read from the text Y.Doc: the one place the editor
 * resolves anchors. The editor controller calls `place` on every transaction before the state
 * applies it; a transaction that brings text from Yjs (another person, an undo, the first
 * render) or a new list of annotations leaves carrying the resolved placements as meta, so the
 * annotations plugin's `apply` stays a pure function of the transaction and its previous state.
 */
export class AnnotationPlacer {
  constructor(private readonly textYdoc: Y.Doc) {}

  /** Where each anchor is now; every one is `not-synced` before the binding's first render. */
  resolve(state: EditorState, anchors: readonly Anchor[]): Placement[] {
    const mapping = bindingMapping(state);
    // Before the binding's first render its mapping is empty while the text is not.
    if (!mapping || (mapping.size === 0 && docParts(this.textYdoc).content.length > 0)) {
      return anchors.map(() => ({ status: 'orphaned', reason: 'not-synced' }));
    }
    return resolveAnchors(this.textYdoc, anchors, mapping).map((resolved) =>
      resolved.status === 'attached' ? { status: 'attached', from: resolved.from, to: resolved.to } : resolved,
    );
  }

  /** A new pin for `from`–`to` of `state`'s text, or null when none can be made. */
  pin(state: EditorState, from: number, to: number): PinnedRange | null {
    const mapping = bindingMapping(state);
    if (!mapping) return null;
    try {
      return anchorFromRange(this.textYdoc, from, to, mapping);
    } catch {
      return null;
    }
  }

  /**
   * Adds the placements to `tr` when it needs them: a text change from Yjs (its steps replace the
   * whole text, so nothing can be mapped through it) or new annotations outside a local change
   * (a local change is mapped, then checked by the plugin's view). Returns `tr`.
   */
  place(tr: Transaction, before: EditorState): Transaction {
    const meta = tr.getMeta(annotationsKey) as AnnotationsMeta | undefined;
    const fromYjs = !!tr.getMeta(ySyncPluginKey)?.isChangeOrigin;
    const needed = tr.docChanged ? fromYjs : meta?.type === 'annotations';
    const current = annotationsKey.getState(before);
    if (!needed || !current) return tr;
    const annotations = meta?.type === 'annotations' ? meta.annotations : current.annotations;
    const draft = meta?.type === 'draft' ? meta.draft : current.draft;
    const found = this.resolve(before, [...annotations.map((a) => a.anchor), ...(draft ? [draft.pin.anchor] : [])]);
    const placed: Placed = {
      placements: new Map(annotations.map((a, index) => [a.id, found[index]])),
      draft: draft ? found[annotations.length] : null,
    };
    return tr.setMeta(placedKey, placed);
  }
}
