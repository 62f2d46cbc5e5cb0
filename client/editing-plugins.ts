import type { Attrs, NodeType, Node as ProseMirrorNode } from 'prosemirror-model';
import { canJoin, findWrapping } from 'prosemirror-transform';
import { AllSelection, Plugin, Selection, TextSelection, type Command, type Transaction } from 'prosemirror-state';
import { Decoration, DecorationSet, type EditorView } from 'prosemirror-view';
import { keymap } from 'prosemirror-keymap';
import { baseKeymap, chainCommands, exitCode } from 'prosemirror-commands';
import { splitListItem, sinkListItem, liftListItem } from 'prosemirror-schema-list';
import { InputRule, inputRules, undoInputRule } from 'prosemirror-inputrules';
import { undoCommand, redoCommand } from 'y-prosemirror';
import { schema } from '../shared/model/schema.ts';
import { isOwnChange, newBlockId } from '../shared/model/block-ids.ts';
import { tableMenuItems, toolbarItems, setBlockKeepingId } from './editor-commands.ts';
import { pastePlugin } from './paste-plugin.ts';
import { tablePlugins } from './table-commands.ts';

const { nodes } = schema;

/**
 * How the text is edited (EDIT1–EDIT3, paste EDIT4), apart from Yjs, presence and Tandem's own layers: the
 * keymaps from the most specific to the base one, the Markdown shortcuts, the caret after typed
 * text, the empty-document rule and paste (client/paste-plugin.ts). The editor puts them after its binding and layers
 * (editor-plugins.ts); the plain y-prosemirror editor the browser tests compare it with
 * (tests/e2e/oracle-editor/) uses them alone.
 */
export function editingPlugins(): Plugin[] {
  return [
    // First: in a table, Tab, Shift+Tab and Enter are the table's (client/table-commands.ts).
    ...tablePlugins(),
    keymap(editingKeys()),
    keymap({
      Enter: splitListItem(nodes.list_item),
      Tab: sinkListItem(nodes.list_item),
      'Shift-Tab': liftListItem(nodes.list_item),
    }),
    keymap(baseKeymap),
    inputRules({ rules: markdownRules() }),
    caretAfterTypedTextPlugin(),
    firstParagraphPlugin(),
    clickBetweenBlocksPlugin(),
    pastePlugin(),
  ];
}

/**
 * EDIT2. Chromium sometimes leaves its caret in front of a character typed into a text block it has
 * just been given (an empty paragraph made by Enter or by clearing the document, typed into
 * before the next frame), and ProseMirror takes the selection it reads from the DOM: the next
 * key then lands before the first one ("ello worldH"). Typed text always leaves the caret after
 * it, so a caret read back at the start of what was just typed is put after it. Composition is
 * left alone: an input method may place its caret inside the text it composes.
 */
function caretAfterTypedTextPlugin(): Plugin {
  return new Plugin({
    props: {
      handleTextInput(view, from, _to, text, deflt) {
        if (view.composing || text.length === 0) return false;
        const tr = deflt();
        const { selection } = tr;
        if (!selection.empty || selection.head !== from) return false;
        view.dispatch(tr.setSelection(TextSelection.create(tr.doc, from + text.length)));
        return true;
      },
    },
  });
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
  for (const item of [...toolbarItems, ...tableMenuItems]) if (item?.shortcut && !(item.shortcut in keys)) keys[item.shortcut] = item.command;
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
    wrapRule(/^\s*([-+*])\s$/, nodes.bullet_list, withNewId),
    wrapRule(
      /^(\d+)\.\s$/,
      nodes.ordered_list,
      (match) => ({ order: Number(match[1]) || 1, ...withNewId() }),
      (match, node) => node.childCount + node.attrs.order === Number(match[1]),
    ),
    wrapRule(/^\s*>\s$/, nodes.blockquote, withNewId),
  ];
}

/**
 * A block an input rule wraps around the text comes with its id: were the block-id plugin to give
 * it one in a transaction of its own, the input rule's Backspace (`undoInputRule`, which takes back
 * only the rule's own last transaction) would find it gone and join the block instead.
 */
const withNewId = () => ({ id: newBlockId() });

/**
 * Like `wrappingInputRule`, but every node the rule wraps around the text comes with an id: the
 * list, and the list item inside it too (OP12), for the reason `withNewId` gives.
 */
function wrapRule(
  pattern: RegExp,
  type: NodeType,
  attrs: (match: RegExpMatchArray) => Attrs,
  joinPredicate?: (match: RegExpMatchArray, node: ProseMirrorNode) => boolean,
): InputRule {
  return new InputRule(pattern, (state, match, start, end) => {
    const tr = state.tr.delete(start, end);
    const range = tr.doc.resolve(start).blockRange();
    const wrapping = range && findWrapping(range, type, attrs(match));
    if (!range || !wrapping) return null;
    tr.wrap(range, wrapping.map((wrapper) => (wrapper.type === type ? wrapper : { type: wrapper.type, attrs: { ...wrapper.attrs, ...withNewId() } })));
    const before = tr.doc.resolve(start - 1).nodeBefore;
    if (before && before.type === type && canJoin(tr.doc, start - 1) && (!joinPredicate || joinPredicate(match, before))) tr.join(start - 1);
    return tr;
  });
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
 * A double or triple click that lands between blocks or below the last one (the editor's empty
 * space) puts the caret in the nearest text before it, as a single click there does: ProseMirror
 * would select "the word" at a position outside any text block, which is no valid selection.
 * A click counts as a repeat the way ProseMirror counts it (its own clock, not the browser's
 * `detail`): within half a second and ten pixels of the last one in the editor.
 */
function clickBetweenBlocksPlugin(): Plugin {
  let last = { time: 0, x: 0, y: 0 };
  return new Plugin({
    props: {
      handleDOMEvents: {
        mousedown(view, event) {
          const now = Date.now();
          const repeated = now - last.time < 500 && (event.clientX - last.x) ** 2 + (event.clientY - last.y) ** 2 < 100;
          last = { time: now, x: event.clientX, y: event.clientY };
          if (event.button !== 0 || !repeated) return false;
          const pos = view.posAtCoords({ left: event.clientX, top: event.clientY });
          if (!pos || pos.inside > -1) return false;
          const $pos = view.state.doc.resolve(pos.pos);
          if ($pos.parent.inlineContent) return false;
          event.preventDefault();
          view.focus();
          view.dispatch(view.state.tr.setSelection(Selection.near($pos, -1)));
          return true;
        },
      },
    },
  });
}

/**
 * EDIT2. The schema allows an empty document (concurrent deletes can produce one), but an empty
 * document has no place for the caret. A person's own change that empties the text (select all,
 * Delete) leaves one empty paragraph with the caret in it, as part of that change; text that
 * arrives in an empty document puts the caret at its start; an empty document from elsewhere (a new document, another peer's deletes) gets its paragraph when the
 * person focuses or clicks it, before any key reaches the text. A hint shows while the document
 * is a single empty paragraph.
 */
function firstParagraphPlugin(): Plugin {
  const ensure = (view: EditorView) => {
    if (!view.editable || view.state.doc.childCount > 0) return false;
    view.dispatch(withFirstParagraph(view.state.tr).setMeta('addToHistory', false));
    return false;
  };
  return new Plugin({
    appendTransaction(transactions, old, state) {
      if (state.doc.childCount === 0) return transactions.some(isOwnChange) ? withFirstParagraph(state.tr) : null;
      // The selection of an empty document selects all of it; the binding keeps that kind of
      // selection when text arrives from Yjs, and the next key would replace all of the text.
      if (old.doc.childCount === 0 && state.selection instanceof AllSelection) {
        return state.tr.setSelection(Selection.atStart(state.doc)).setMeta('addToHistory', false);
      }
      return null;
    },
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

/** `tr` with one empty paragraph inserted into its empty document and the caret in it. */
function withFirstParagraph(tr: Transaction): Transaction {
  tr.insert(0, nodes.paragraph.create());
  return tr.setSelection(TextSelection.create(tr.doc, 1));
}
