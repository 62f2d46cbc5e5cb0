import { describe, expect, it } from 'vitest';
import { EditorState, TextSelection, type Command } from 'prosemirror-state';
import { schema } from '../../shared/model/schema.ts';
import { tableMenuItems, toolbarItems, type ToolbarItem } from '../../client/editor-commands.ts';
import { parseRoute } from '../../client/router.ts';

const { nodes } = schema;

function stateWith(...blocks: ReturnType<typeof nodes.paragraph.create>[]) {
  const doc = nodes.doc.create(null, blocks);
  return EditorState.create({ doc, selection: TextSelection.create(doc, 2) });
}

function item(label: string): ToolbarItem {
  const found = toolbarItems.find((entry) => entry?.label === label);
  if (!found) throw new Error(`no toolbar item ${label}`);
  return found;
}

function run(state: EditorState, command: Command): EditorState {
  let next = state;
  expect(command(state, (tr) => (next = state.apply(tr)))).toBe(true);
  return next;
}

describe('toolbar commands', () => {
  it('turns a paragraph into a heading and back, keeping its block id', () => {
    const start = stateWith(nodes.paragraph.create({ id: 'b1' }, schema.text('Hello')));
    const heading = run(start, item('Heading 2').command);
    expect(heading.doc.firstChild?.type.name).toBe('heading');
    expect(heading.doc.firstChild?.attrs).toMatchObject({ id: 'b1', level: 2 });
    expect(item('Heading 2').active?.(heading)).toBe(true);
    const back = run(heading, item('Heading 2').command);
    expect(back.doc.firstChild?.type.name).toBe('paragraph');
    expect(back.doc.firstChild?.attrs.id).toBe('b1');
  });

  it('wraps a paragraph in a bullet list and lifts it out again', () => {
    const start = stateWith(nodes.paragraph.create({ id: 'b1' }, schema.text('Item')));
    const listed = run(start, item('Bullet list').command);
    expect(listed.doc.firstChild?.type.name).toBe('bullet_list');
    expect(item('Bullet list').active?.(listed)).toBe(true);
    const lifted = run(listed, item('Bullet list').command);
    expect(lifted.doc.firstChild?.type.name).toBe('paragraph');
  });

  it('names every toolbar button as the contract and the tests expect', () => {
    expect(toolbarItems.filter((entry) => entry !== null).map((entry) => entry!.label)).toEqual([
      'Bold', 'Italic', 'Code', 'Strike', 'Link', 'Heading 1', 'Heading 2', 'Heading 3',
      'Bullet list', 'Numbered list', 'Quote', 'Insert table', 'Insert image', 'Undo', 'Redo',
    ]);
    expect(tableMenuItems.map((entry) => entry.label)).toEqual(['Add row below', 'Add column right', 'Delete row', 'Delete column', 'Delete table']);
  });
});

describe('client routes', () => {
  it('maps / to the list and /d/<id> to a document', () => {
    expect(parseRoute('/')).toEqual({ name: 'list' });
    expect(parseRoute('/d/abc_123')).toEqual({ name: 'doc', docId: 'abc_123' });
    expect(parseRoute('/d/abc/')).toEqual({ name: 'doc', docId: 'abc' });
  });

  it('does not take malformed ids or unknown paths for documents', () => {
    expect(parseRoute('/d/a%2Fb')).toEqual({ name: 'not-found' });
    expect(parseRoute('/d/')).toEqual({ name: 'not-found' });
    expect(parseRoute('/elsewhere')).toEqual({ name: 'not-found' });
  });
});
