import { Plugin, TextSelection, type Command, type EditorState, type Transaction } from 'prosemirror-state';
import { keymap } from 'prosemirror-keymap';
import {
  TableMap,
  addRowAfter,
  goToNextCell,
  isInTable,
  selectedRect,
  tableEditing,
} from 'prosemirror-tables';
import { ySyncPluginKey } from 'y-prosemirror';
import { schema } from '../shared/model/schema.ts';
import { newBlockId } from '../shared/model/block-ids.ts';

const { nodes } = schema;

/**
 * Editing tables (prosemirror-tables): cell selection, the keys and the commands of the
 * `Insert table` button and the table menu. No column resizing: column widths are no
 * attribute of this schema (shared/model/table-nodes.ts).
 */
export function tablePlugins(): Plugin[] {
  return [localTableEditing(), keymap(tableKeys)];
}

/**
 * prosemirror-tables' `tableEditing`, whose `appendTransaction` mends malformed tables
 * (`fixTables`) only after a change of this editor's own. Mending after a change from Yjs too
 * would have every peer mend the same table at once, each adding the missing cells, which
 * multiplies them (prosemirror-tables#249); a table left ragged by concurrent edits is drawn
 * and written to Markdown as it is, and mended by the next person to edit it.
 */
function localTableEditing(): Plugin {
  const plugin = tableEditing();
  const append = plugin.spec.appendTransaction;
  return new Plugin({
    ...plugin.spec,
    appendTransaction(transactions, oldState, newState) {
      if (transactions.some((tr) => tr.getMeta(ySyncPluginKey)?.isChangeOrigin === true)) return null;
      return append ? append.call(plugin, transactions, oldState, newState) : null;
    },
  });
}

/** Tab in the last cell adds a row below and moves into it; elsewhere in a table Tab moves a cell on. */
const nextCellOrNewRow: Command = (state, dispatch) => {
  if (!isInTable(state)) return false;
  if (goToNextCell(1)(state, dispatch)) return true;
  if (!dispatch) return true;
  const rect = selectedRect(state);
  addRowAfter(state, (tr) => dispatch(withCaretInRow(tr, rect.tableStart, rect.map.height)));
  return true;
};

/** `tr` with the caret in the first cell of row `row` of the table whose content starts at `tableStart`. */
function withCaretInRow(tr: Transaction, tableStart: number, row: number): Transaction {
  const table = tr.doc.nodeAt(tableStart - 1);
  if (!table) return tr;
  const cellPos = tableStart + TableMap.get(table).positionAt(row, 0, table);
  return tr.setSelection(TextSelection.create(tr.doc, cellPos + 1)).scrollIntoView();
}

export const inTable = (command: Command): Command => (state, dispatch, view) => isInTable(state) && command(state, dispatch, view);

const tableKeys: Record<string, Command> = {
  Tab: nextCellOrNewRow,
  'Shift-Tab': inTable((state, dispatch) => goToNextCell(-1)(state, dispatch) || true),
  // A GFM cell holds one line: Enter would split the cell into two, Shift+Enter break its line.
  Enter: inTable(() => true),
  'Shift-Enter': inTable(() => true),
};

/** A table of `rows` × `columns` empty cells, its first row the header, with a fresh block id. */
export function emptyTable(rows: number, columns: number) {
  const row = (type: typeof nodes.table_cell) => nodes.table_row.create(null, Array.from({ length: columns }, () => type.create()));
  return nodes.table.create({ id: newBlockId() }, [row(nodes.table_header), ...Array.from({ length: rows - 1 }, () => row(nodes.table_cell))]);
}

/** Inserts a 3 × 3 table with a header row after the caret's block, the caret in its first cell. */
export const insertTable: Command = (state, dispatch) => {
  const { $from } = state.selection;
  if (isInTable(state) || $from.depth < 1) return false;
  const after = $from.after(1);
  if (dispatch) {
    // A table that ends the text gets a paragraph after it, so the caret has somewhere to go.
    const last = after === state.doc.content.size;
    const tr = state.tr.insert(after, last ? [emptyTable(3, 3), nodes.paragraph.create()] : emptyTable(3, 3));
    dispatch(tr.setSelection(TextSelection.create(tr.doc, after + 3)).scrollIntoView());
  }
  return true;
};

export function caretInTable(state: EditorState): boolean {
  return isInTable(state);
}
