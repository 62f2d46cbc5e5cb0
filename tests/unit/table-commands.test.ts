import { describe, expect, it } from 'vitest';
import { EditorState, TextSelection, type Command } from 'prosemirror-state';
import { schema } from '../../shared/model/schema.ts';
import { insertTable } from '../../client/table-commands.ts';
import { docToMarkdown } from '../../shared/model/markdown.ts';

/* The table commands of the editor (client/table-commands.ts), over editor states. */

const { nodes } = schema;

function run(state: EditorState, command: Command): EditorState {
  let next = state;
  expect(command(state, (tr) => (next = state.apply(tr)))).toBe(true);
  return next;
}

describe('table commands', () => {
  it('insert a 3 × 3 table with a header row and a fresh id after the caret\'s block, a paragraph after a last table, the caret in its first cell', () => {
    const doc = nodes.doc.create(null, [nodes.paragraph.create({ id: 'p1' }, schema.text('Hi'))]);
    const state = run(EditorState.create({ doc, selection: TextSelection.create(doc, 2) }), insertTable);
    expect(state.doc.childCount).toBe(3);
    const table = state.doc.child(1);
    expect(table.type).toBe(nodes.table);
    expect(table.attrs.id).toMatch(/^b/);
    expect(docToMarkdown(state.doc)).toBe('Hi\n\n|  |  |  |\n| --- | --- | --- |\n|  |  |  |\n|  |  |  |');
    expect(state.selection.$from.parent.type).toBe(nodes.table_header);
    expect(insertTable(state)).toBe(false);
  });
});
