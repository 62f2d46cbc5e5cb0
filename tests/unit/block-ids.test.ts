import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EditorState, TextSelection } from 'prosemirror-state';
import { splitBlock } from 'prosemirror-commands';
import { Slice, type Node } from 'prosemirror-model';
import { carriesId, holdsBlocks, schema } from '../../shared/model/schema.ts';
import { blockIdsPlugin, blocksNeedingIds, derivedBlockId, withBlockIds } from '../../shared/model/block-ids.ts';
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

  it('[OP12] gives ids at every depth as the rule reads them: a nested block lacking one derives it from its parent, once per id', () => {
    // Lists and quotes nested a few levels, some ids kept, some missing, some repeated.
    const text = fc.constantFrom('one', 'two', 'three');
    const block: fc.Arbitrary<string> = fc.letrec<{ block: string }>((tie) => ({
      block: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        text,
        text.map((words) => `# ${words}`),
        fc.array(tie('block'), { minLength: 1, maxLength: 3 }).map((items) => items.map((item) => `- ${item.split('\n').join('\n  ')}`).join('\n')),
        tie('block').map((inner) => inner.split('\n').map((line) => `> ${line}`).join('\n')),
      ),
    })).block;
    const idChoice = fc.array(fc.constantFrom<'keep' | 'drop' | 'repeat'>('keep', 'drop', 'repeat'), { minLength: 64, maxLength: 64 });
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 5 }), idChoice, (blocks, choices) => {
        let n = 0;
        const doc = reassignIds(markdownToDoc(blocks.join('\n\n')), (id) => {
          const choice = choices[n++ % choices.length];
          return choice === 'keep' ? id : choice === 'drop' ? null : 'b-repeated';
        });
        let made = 0;
        const fixed = withBlockIds(doc, () => `new${++made}`);
        made = 0;
        expect(idsInOrder(fixed)).toEqual(idsByResolving(doc, () => `new${++made}`));
        expect(fixed.textContent).toBe(doc.textContent);
        expect(blocksNeedingIds(fixed)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});

/** `doc` with each block's id replaced by `change(id)` in document order (null: no id). */
function reassignIds(doc: Node, change: (id: string) => string | null): Node {
  const rebuild = (node: Node): Node => {
    if (node.isText) return node;
    const children: Node[] = [];
    node.forEach((child) => children.push(rebuild(child)));
    const attrs = typeof node.attrs.id === 'string' ? { ...node.attrs, id: change(node.attrs.id) } : node.attrs;
    return node.type.create(attrs, children, node.marks);
  };
  return rebuild(doc);
}

/** Every id-carrying node's id, in document order. */
function idsInOrder(doc: Node): (string | null)[] {
  const out: (string | null)[] = [];
  doc.descendants((node) => {
    if (carriesId(node.type)) out.push(node.attrs.id as string | null);
    return holdsBlocks(node.type);
  });
  return out;
}

/**
 * The ids the rule gives, read the plain way (each node's parent found by resolving its
 * position): the first to carry an id keeps it; a nested node lacking one whose parent has one,
 * or was given one, derives it unless that id is taken; every other gets `makeId()`.
 */
function idsByResolving(doc: Node, makeId: () => string): (string | null)[] {
  const taken = new Set<string>();
  doc.descendants((node) => {
    if (carriesId(node.type) && typeof node.attrs.id === 'string' && node.attrs.id !== '') taken.add(node.attrs.id);
    return holdsBlocks(node.type);
  });
  const seen = new Set<string>();
  const given = new Map<number, string>();
  const out: (string | null)[] = [];
  doc.descendants((node, pos, parent, index) => {
    if (!carriesId(node.type)) return holdsBlocks(node.type);
    const own = node.attrs.id as string | null;
    if (typeof own === 'string' && own !== '' && !seen.has(own)) {
      seen.add(own);
      out.push(own);
      return holdsBlocks(node.type);
    }
    const $pos = doc.resolve(pos);
    const parentId = parent && parent !== doc && typeof own !== 'string' && typeof parent.attrs.id === 'string' && parent.attrs.id !== '' ? parent.attrs.id : null;
    const fromParent = parentId ?? ($pos.depth === 0 ? null : (given.get($pos.before()) ?? null));
    let id = fromParent === null ? null : derivedBlockId(fromParent, index);
    if (id === null || taken.has(id)) id = makeId();
    taken.add(id);
    given.set(pos, id);
    out.push(id);
    return holdsBlocks(node.type);
  });
  return out;
}
