import { describe, expect, it } from 'vitest';
import { EditorState, TextSelection } from 'prosemirror-state';
import { splitBlock } from 'prosemirror-commands';
import { Slice } from 'prosemirror-model';
import { schema } from '../../shared/model/schema.ts';
import { blockIdsPlugin, blocksNeedingIds, withBlockIds } from '../../shared/model/block-ids.ts';
import { markdownToDoc } from '../../shared/model/markdown.ts';

function ids(state: EditorState): string[] {
  const out: string[] = [];
  state.doc.forEach((b) => out.push(b.attrs.id));
  return out;
}

function stateOf(markdown: string): EditorState {
  return EditorState.create({ doc: markdownToDoc(markdown), plugins: [blockIdsPlugin()] });
}

describe('block ids', () => {
  it('[DOC2] keeps the first half of a split paragraph on its id and gives the second half a new one', () => {
    let state = stateOf('Hello world');
    const [original] = ids(state);
    state = state.apply(state.tr.setSelection(TextSelection.create(state.doc, 6)));
    splitBlock(state, (tr) => {
      state = state.applyTransaction(tr).state;
    });
    const after = ids(state);
    expect(after).toHaveLength(2);
    expect(after[0]).toBe(original);
    expect(after[1]).not.toBe(original);
    expect(after[1]).toMatch(/^b[0-9a-z]{9}$/);
    expect(state.doc.child(0).textContent).toBe('Hello');
    expect(state.doc.child(1).textContent).toBe(' world');
  });

  it('[DOC2] renews the ids of pasted blocks that duplicate existing ones', () => {
    let state = stateOf('First\n\nSecond');
    const before = ids(state);
    const copied = state.doc.slice(0, state.doc.content.size);
    state = state.apply(state.tr.replace(state.doc.content.size, state.doc.content.size, new Slice(copied.content, 0, 0)));
    const after = ids(state);
    expect(after).toHaveLength(4);
    expect(after.slice(0, 2)).toEqual(before);
    expect(new Set(after).size).toBe(4);
  });

  it('gives a block created without an id a fresh one', () => {
    let state = stateOf('One');
    state = state.apply(state.tr.insert(state.doc.content.size, schema.nodes.paragraph.create(null, schema.text('Two'))));
    const after = ids(state);
    expect(after).toHaveLength(2);
    expect(after[1]).toBeTruthy();
    expect(after[1]).not.toBe(after[0]);
  });

  it('finds missing and repeated ids and fixes them without touching unique ones', () => {
    const p = (id: string | null, text: string) => schema.nodes.paragraph.create({ id }, schema.text(text));
    const doc = schema.nodes.doc.create(null, [p('a', 'one'), p(null, 'two'), p('a', 'three'), p('c', 'four')]);
    expect(blocksNeedingIds(doc)).toEqual([5, 10]);
    let n = 0;
    const fixed = withBlockIds(doc, () => `new${++n}`);
    const out: string[] = [];
    fixed.forEach((b) => out.push(b.attrs.id));
    expect(out).toEqual(['a', 'new1', 'new2', 'c']);
    expect(fixed.textContent).toBe(doc.textContent);
  });
});
