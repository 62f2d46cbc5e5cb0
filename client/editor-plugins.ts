import type * as Y from 'yjs';
import type { Awareness } from 'y-protocols/awareness';
import type { Attrs, NodeType } from 'prosemirror-model';
import { Plugin, TextSelection, type Command } from 'prosemirror-state';
import { Decoration, DecorationSet, type EditorView } from 'prosemirror-view';
import { keymap } from 'prosemirror-keymap';
import { baseKeymap, chainCommands, exitCode } from 'prosemirror-commands';
import { splitListItem, sinkListItem, liftListItem } from 'prosemirror-schema-list';
import { InputRule, inputRules, wrappingInputRule, undoInputRule } from 'prosemirror-inputrules';
import { ySyncPlugin, yCursorPlugin, yUndoPlugin, undoCommand, redoCommand } from 'y-prosemirror';
import { schema } from '../shared/model/schema.ts';
import { blockIdsPlugin } from '../shared/model/block-ids.ts';
import { toolbarItems, setBlockKeepingId } from './editor-commands.ts';
import type { AnnotationKind } from '../shared/notes/annotations.ts';
import { annotationsPlugin, type AnnotationsPluginOptions } from './annotation-plugin.ts';
import { openDraft } from './annotation-commands.ts';
import { reviewPlugin } from './review-plugin.ts';
import { buildCursor, buildSelection } from './cursors.ts';

export interface EditorAnnotationOptions extends AnnotationsPluginOptions {
  /** Whether this person may now create an annotation of `kind` (its keyboard shortcut works). */
  allows(kind: AnnotationKind): boolean;
}

/** Shortcuts that start a draft on the selection (Ctrl+Alt+M is the usual "comment"). */
export const draftShortcuts: Record<AnnotationKind, string> = { comment: 'Mod-Alt-m', instruction: 'Mod-Alt-i' };

const { nodes } = schema;

/**
 * Every plugin of the editor, in precedence order: the Yjs binding first (the undo plugin
 * reads its state), then keymaps from the most specific to the base one.
 */
export function editorPlugins(yfragment: Y.XmlFragment, awareness: Awareness, annotations: EditorAnnotationOptions): Plugin[] {
  const draftKeys: Record<string, Command> = {};
  for (const kind of ['comment', 'instruction'] as const) {
    const open = openDraft(kind, annotations.pin);
    draftKeys[draftShortcuts[kind]] = (state, dispatch) => annotations.allows(kind) && open(state, dispatch);
  }
  return [
    ySyncPlugin(yfragment),
    yCursorPlugin(awareness, { cursorBuilder: buildCursor, selectionBuilder: buildSelection }),
    yUndoPlugin(),
    // After the binding: its view update (which writes local changes to Yjs) runs first.
    annotationsPlugin(annotations),
    reviewPlugin(),
    keymap(draftKeys),
    keymap(editingKeys()),
    keymap({
      Enter: splitListItem(nodes.list_item),
      Tab: sinkListItem(nodes.list_item),
      'Shift-Tab': liftListItem(nodes.list_item),
    }),
    keymap(baseKeymap),
    inputRules({ rules: markdownRules() }),
    blockIdsPlugin(),
    firstParagraphPlugin(),
  ];
}

function editingKeys(): Record<string, Command> {
  const keys: Record<string, Command> = {
    'Mod-z': undoCommand,
    'Mod-y': redoCommand,
    'Mod-Shift-z': redoCommand,
    'Mod-Alt-0': setBlockKeepingId(nodes.paragraph),
    'Shift-Enter': chainCommands(exitCode, insertHardBreak),
    Backspace: undoInputRule,
  };
  for (const item of toolbarItems) if (item && !(item.shortcut in keys)) keys[item.shortcut] = item.command;
  return keys;
}

const insertHardBreak: Command = (state, dispatch) => {
  dispatch?.(state.tr.replaceSelectionWith(nodes.hard_break.create()).scrollIntoView());
  return true;
};

/** Markdown shortcuts typed at the start of a block: `# `, `- `, `1. `, `> `, three backticks. */
function markdownRules(): InputRule[] {
  return [
    blockTypeRule(/^(#{1,3})\s$/, nodes.heading, (match) => ({ level: match[1].length })),
    blockTypeRule(/^```$/, nodes.code_block),
    wrappingInputRule(/^\s*([-+*])\s$/, nodes.bullet_list),
    wrappingInputRule(
      /^(\d+)\.\s$/,
      nodes.ordered_list,
      (match) => ({ order: Number(match[1]) || 1 }),
      (match, node) => node.childCount + node.attrs.order === Number(match[1]),
    ),
    wrappingInputRule(/^\s*>\s$/, nodes.blockquote),
  ];
}

/** Like `textblockTypeInputRule`, but the block keeps its id. */
function blockTypeRule(pattern: RegExp, type: NodeType, attrs: (match: RegExpMatchArray) => Attrs = () => ({})): InputRule {
  return new InputRule(pattern, (state, match, start, end) => {
    const $start = state.doc.resolve(start);
    if (!$start.node(-1).canReplaceWith($start.index(-1), $start.indexAfter(-1), type)) return null;
    return state.tr
      .delete(start, end)
      .setBlockType(start, start, type, (old) => ({ ...attrs(match), id: old.attrs.id }));
  });
}

/**
 * The schema allows an empty document (concurrent deletes can produce one), but an empty
 * document has no place for the caret. When a person focuses or clicks an editable empty
 * document, it gets one paragraph; a hint shows while the document is a single empty paragraph.
 */
function firstParagraphPlugin(): Plugin {
  const ensure = (view: EditorView) => {
    if (!view.editable || view.state.doc.childCount > 0) return false;
    const tr = view.state.tr.insert(0, nodes.paragraph.create());
    view.dispatch(tr.setSelection(TextSelection.create(tr.doc, 1)).setMeta('addToHistory', false));
    return false;
  };
  return new Plugin({
    props: {
      handleDOMEvents: { focus: ensure, mousedown: ensure },
      handleKeyDown: ensure,
      decorations(state) {
        const first = state.doc.firstChild;
        if (state.doc.childCount !== 1 || !first || first.type !== nodes.paragraph || first.content.size > 0) return null;
        return DecorationSet.create(state.doc, [
          Decoration.node(0, first.nodeSize, { class: 'placeholder', 'data-placeholder': 'Start writing…' }),
        ]);
      },
    },
  });
}
