import type { Attrs, MarkType, Node, NodeType } from 'prosemirror-model';
import type { Command, EditorState } from 'prosemirror-state';
import { toggleMark, wrapIn, lift } from 'prosemirror-commands';
import { wrapInList, liftListItem } from 'prosemirror-schema-list';
import { undoCommand, redoCommand, yUndoPluginKey } from 'y-prosemirror';
import { addColumnAfter, addRowAfter, deleteColumn, deleteRow, deleteTable } from 'prosemirror-tables';
import { schema } from '../shared/model/schema.ts';
import { linkAt, openLinkEditor } from './link-plugin.ts';
import { inTable, insertTable } from './table-commands.ts';
import { openImagePicker } from './image-plugin.ts';

const { nodes, marks } = schema;

/** Changes the type of the selected textblocks, keeping each block's id (agents address blocks by it). */
export function setBlockKeepingId(type: NodeType, attrs: Attrs = {}): Command {
  return (state, dispatch) => {
    const { from, to } = state.selection;
    let applicable = false;
    state.doc.nodesBetween(from, to, (node, pos) => {
      if (applicable || !node.isTextblock) return !applicable;
      if (node.type === type && sameAttrs(node, attrs)) return false;
      const $pos = state.doc.resolve(pos);
      applicable = $pos.parent.canReplaceWith($pos.index(), $pos.index() + 1, type);
      return false;
    });
    if (!applicable) return false;
    if (dispatch) {
      const tr = state.tr.setBlockType(from, to, type, (old) => ({ ...attrs, id: old.attrs.id }));
      dispatch(tr.scrollIntoView());
    }
    return true;
  };
}

function sameAttrs(node: Node, attrs: Attrs): boolean {
  return Object.entries(attrs).every(([key, value]) => node.attrs[key] === value);
}

/**
 * Ends the person's current undo step (y-prosemirror's UndoManager, which merges changes less
 * than 500 ms apart), when the state has one.
 */
export function endUndoStep(state: EditorState): void {
  yUndoPluginKey.getState(state)?.undoManager.stopCapturing();
}

/**
 * `command` as an undo step of its own, apart from the changes just before and after it. The
 * binding writes a dispatched change to Yjs before `dispatch` returns, so the step can end then.
 */
export function ownUndoStep(command: Command): Command {
  return (state, dispatch, view) => {
    if (!dispatch) return command(state, undefined, view);
    endUndoStep(state);
    const done = command(state, dispatch, view);
    endUndoStep(state);
    return done;
  };
}

/** Turns a heading back into a paragraph, or the paragraph into a heading of `level`. */
function toggleHeading(level: number): Command {
  return (state, dispatch) =>
    isBlockActive(state, nodes.heading, { level })
      ? setBlockKeepingId(nodes.paragraph)(state, dispatch)
      : setBlockKeepingId(nodes.heading, { level })(state, dispatch);
}

/** Lifts the selection out of a list of `type`, or wraps it in one. */
function toggleList(type: NodeType): Command {
  return (state, dispatch) =>
    isInside(state, type) ? liftListItem(nodes.list_item)(state, dispatch) : wrapInList(type)(state, dispatch);
}

function toggleQuote(): Command {
  return (state, dispatch) =>
    isInside(state, nodes.blockquote) ? lift(state, dispatch) : wrapIn(nodes.blockquote)(state, dispatch);
}

export function isMarkActive(state: EditorState, type: MarkType): boolean {
  const { from, $from, to, empty } = state.selection;
  if (empty) return !!type.isInSet(state.storedMarks ?? $from.marks());
  return state.doc.rangeHasMark(from, to, type);
}

export function isBlockActive(state: EditorState, type: NodeType, attrs: Attrs = {}): boolean {
  const parent = state.selection.$from.parent;
  return parent.type === type && sameAttrs(parent, attrs);
}

function isInside(state: EditorState, type: NodeType): boolean {
  const { $from } = state.selection;
  for (let depth = $from.depth; depth > 0; depth--) if ($from.node(depth).type === type) return true;
  return false;
}

export interface ToolbarItem {
  /** The button's accessible name. */
  label: string;
  /** Shown on the button. */
  text: string;
  /** Its keyboard shortcut, if it has one. */
  shortcut?: string;
  command: Command;
  /** Whether the button shows as pressed; absent for actions (undo, redo). */
  active?: (state: EditorState) => boolean;
}

/** The toolbar, in order. A null entry separates groups. */
export const toolbarItems: (ToolbarItem | null)[] = [
  { label: 'Bold', text: 'B', shortcut: 'Mod-b', command: toggleMark(marks.strong), active: (s) => isMarkActive(s, marks.strong) },
  { label: 'Italic', text: 'I', shortcut: 'Mod-i', command: toggleMark(marks.em), active: (s) => isMarkActive(s, marks.em) },
  { label: 'Code', text: '</>', shortcut: 'Mod-`', command: toggleMark(marks.code), active: (s) => isMarkActive(s, marks.code) },
  { label: 'Strike', text: 'S', shortcut: 'Mod-Shift-x', command: toggleMark(marks.strike), active: (s) => isMarkActive(s, marks.strike) },
  { label: 'Link', text: 'Link', shortcut: 'Mod-k', command: openLinkEditor, active: (s) => linkAt(s) !== null },
  null,
  ...[1, 2, 3].map((level) => ({
    label: `Heading ${level}`,
    text: `H${level}`,
    shortcut: `Mod-Alt-${level}`,
    command: toggleHeading(level),
    active: (s: EditorState) => isBlockActive(s, nodes.heading, { level }),
  })),
  null,
  { label: 'Bullet list', text: '•', shortcut: 'Mod-Shift-8', command: toggleList(nodes.bullet_list), active: (s) => isInside(s, nodes.bullet_list) },
  { label: 'Numbered list', text: '1.', shortcut: 'Mod-Shift-7', command: toggleList(nodes.ordered_list), active: (s) => isInside(s, nodes.ordered_list) },
  { label: 'Quote', text: '❝', shortcut: 'Mod-Shift-9', command: toggleQuote(), active: (s) => isInside(s, nodes.blockquote) },
  { label: 'Insert table', text: '⊞', command: ownUndoStep(insertTable) },
  { label: 'Insert image', text: 'Image', shortcut: 'Mod-Alt-g', command: openImagePicker },
  null,
  { label: 'Undo', text: '↶', shortcut: 'Mod-z', command: undoCommand },
  { label: 'Redo', text: '↷', shortcut: 'Mod-Shift-z', command: redoCommand },
];

/**
 * The table menu, shown while the caret is in a table (client/tandem-toolbar.ts); each use an undo
 * step of its own. Its keys work only in a table (elsewhere they do what they did): Ctrl+Alt+arrows
 * add, as in the Atlassian editor; Ctrl+Shift+Backspace deletes the row, with Alt the column.
 * Delete table has no key of its own: Alt+F10 reaches it in the menu (client/toolbar-focus.ts).
 */
export const tableMenuItems: ToolbarItem[] = [
  { label: 'Add row below', text: '+ Row', shortcut: 'Mod-Alt-ArrowDown', command: ownUndoStep(inTable(addRowAfter)) },
  { label: 'Add column right', text: '+ Column', shortcut: 'Mod-Alt-ArrowRight', command: ownUndoStep(inTable(addColumnAfter)) },
  { label: 'Delete row', text: '− Row', shortcut: 'Mod-Shift-Backspace', command: ownUndoStep(inTable(deleteRow)) },
  { label: 'Delete column', text: '− Column', shortcut: 'Mod-Alt-Shift-Backspace', command: ownUndoStep(inTable(deleteColumn)) },
  { label: 'Delete table', text: 'Delete table', command: ownUndoStep(inTable(deleteTable)) },
];
