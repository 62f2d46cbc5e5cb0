import type * as Y from 'yjs';
import type { Awareness } from 'y-protocols/awareness';
import { type Command, type Plugin } from 'prosemirror-state';
import { keymap } from 'prosemirror-keymap';
import { ySyncPlugin, yCursorPlugin, yUndoPlugin, type initProseMirrorDoc } from 'y-prosemirror';
import { blockIdsPlugin } from '../shared/model/block-ids.ts';
import type { AnnotationKind } from '../shared/notes/annotations.ts';
import { annotationsPlugin, type AnnotationsPluginOptions } from './annotation-plugin.ts';
import { openDraft } from './annotation-commands.ts';
import { reviewPlugin } from './review-plugin.ts';
import { buildCursor, buildSelection } from './cursors.ts';
import { editingPlugins } from './editing-plugins.ts';
import { linkPlugin, openInNewTab, openLinkAtCaret } from './link-plugin.ts';
import { findPlugin } from './find-commands.ts';
import { focusToolbar, toolbarFocusKey } from './toolbar-focus.ts';
import { imagesPlugin, type ImageTarget } from './image-plugin.ts';

export interface EditorAnnotationOptions extends AnnotationsPluginOptions {
  /** Whether this person may now create an annotation of `kind` (its keyboard shortcut works). */
  allows(kind: AnnotationKind): boolean;
}

/** Shortcuts that start a draft on the selection (Ctrl+Alt+M is the usual "comment"). */
export const draftShortcuts: Record<AnnotationKind, string> = { comment: 'Mod-Alt-m', instruction: 'Mod-Alt-i' };

/**
 * Every plugin of the editor, in precedence order: the Yjs binding first (the undo plugin
 * reads its state), then keymaps from the most specific to the base one.
 */
export function editorPlugins(
  yfragment: Y.XmlFragment,
  mapping: ReturnType<typeof initProseMirrorDoc>['mapping'],
  awareness: Awareness,
  annotations: EditorAnnotationOptions,
  images: ImageTarget,
): Plugin[] {
  const draftKeys: Record<string, Command> = {};
  for (const kind of ['comment', 'instruction'] as const) {
    const open = openDraft(kind, annotations.pin);
    draftKeys[draftShortcuts[kind]] = (state, dispatch) => annotations.allows(kind) && open(state, dispatch);
  }
  return [
    ySyncPlugin(yfragment, { mapping }),
    yCursorPlugin(awareness, { cursorBuilder: buildCursor, selectionBuilder: buildSelection }),
    yUndoPlugin(),
    // After the binding: its view update (which writes local changes to Yjs) runs first.
    annotationsPlugin(annotations),
    reviewPlugin(),
    keymap(draftKeys),
    linkPlugin(),
    findPlugin(),
    imagesPlugin(images),
    keymap({ 'Alt-Enter': openLinkAtCaret(openInNewTab), [toolbarFocusKey]: focusToolbar }),
    ...editingPlugins(),
    blockIdsPlugin(),
  ];
}

