import { TextSelection, type Command, type Selection } from 'prosemirror-state';
import type { Node as ProseMirrorNode } from 'prosemirror-model';
import type { AnnotationKind } from '../shared/notes/annotations.ts';
import { annotationsKey, type AnnotationsMeta, type AnnotationsPluginOptions } from './annotation-plugin.ts';

/**
 * The annotation actions that change the editor's state, as ProseMirror commands. They work
 * in read-only views too (commenters pin comments on text they cannot change).
 */

const withMeta = (meta: AnnotationsMeta) => (state: Parameters<Command>[0]) => state.tr.setMeta(annotationsKey, meta);

/**
 * Starts a draft comment or instruction on the selected text, pinned at once by `pin` (the
 * annotations plugin's; null when no pin can be made there).
 */
export function openDraft(kind: AnnotationKind, pin: AnnotationsPluginOptions['pin']): Command {
  return (state, dispatch) => {
    const { from, to, empty } = state.selection;
    if (empty) return false;
    const pinned = pin(state, from, to);
    if (!pinned || pinned.quote.trim() === '') return false;
    dispatch?.(withMeta({ type: 'draft', draft: { kind, pin: pinned, placement: { status: 'attached', from, to } } })(state));
    return true;
  };
}

/**
 * Ends the draft. `restoreSelection` selects its text again (after Escape); otherwise the caret
 * goes to the end of it (after saving).
 */
export function closeDraft(restoreSelection: boolean): Command {
  return (state, dispatch) => {
    const draft = annotationsKey.getState(state)?.draft;
    if (!draft) return false;
    if (dispatch) {
      const tr = withMeta({ type: 'draft', draft: null })(state);
      const placed = draft.placement;
      if (placed.status === 'attached') {
        tr.setSelection(textSelectionOver(tr.doc, restoreSelection ? placed.from : placed.to, placed.to));
      }
      dispatch(tr);
    }
    return true;
  };
}

/**
 * A text selection from `from` to `to`, its ends moved into the nearest text where they lie
 * between blocks (an annotation pinned to whole blocks).
 */
function textSelectionOver(doc: ProseMirrorNode, from: number, to: number): Selection {
  return TextSelection.between(doc.resolve(from), doc.resolve(to));
}

/** Puts an annotation in focus and selects its text (when it still has some). */
export function selectAnnotation(id: string): Command {
  return (state, dispatch) => {
    const current = annotationsKey.getState(state);
    if (!current || !current.annotations.some((a) => a.id === id)) return false;
    if (dispatch) {
      const tr = withMeta({ type: 'active', id })(state);
      const placed = current.placements.get(id);
      if (placed?.status === 'attached') tr.setSelection(textSelectionOver(tr.doc, placed.from, placed.to)).scrollIntoView();
      dispatch(tr);
    }
    return true;
  };
}

/** Puts an annotation in focus (or none) without moving the selection. */
export function focusAnnotation(id: string | null): Command {
  return (state, dispatch) => {
    if (annotationsKey.getState(state)?.active === id) return false;
    dispatch?.(withMeta({ type: 'active', id })(state));
    return true;
  };
}
