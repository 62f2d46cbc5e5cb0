import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { EditorState } from 'prosemirror-state';
import { applyOps, type ApplierRun } from '../../shared/applier/applier.ts';
import { acceptRunText, pendingDeletes } from '../../shared/applier/pending-delete.ts';
import { itemsOfRun, undoRunItems } from '../../shared/applier/run-items.ts';
import { tagBatch } from '../../shared/applier/item-parts.ts';
import { runUndoManager, undoRun } from '../../shared/applier/run-scope.ts';
import { opKinds } from '../../shared/applier/op-kinds.ts';
import type { Op } from '../../shared/applier/ops.ts';
import { anchorFromRange } from '../../shared/model/anchors.ts';
import { blockIdsPlugin, derivedBlockId } from '../../shared/model/block-ids.ts';
import { readBlocks, readProseMirrorDoc, type BlockView } from '../../shared/model/doc-content.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { markdownToBlocks } from '../../shared/model/markdown.ts';
import { giveNestedIds } from '../../shared/model/nested-ids.ts';
import { runOrigin, serverOrigin } from '../../shared/model/origins.ts';
import { schema } from '../../shared/model/schema.ts';
import { makeBlocksYDoc, makeYDoc, replicaOf } from '../helpers/doc-builder.ts';

/*
 * Nested blocks (PROTOCOL.md OP12): every list item and every block inside an item or a quote
 * has an id, is listed with its parent, and is addressed by ops as a top-level block is; the
 * fence, hashes, pending deletes and the review hold for them.
 */

const source = ['Intro', '- first item\n- second item\n- third item', '> quoted words', 'Outro'].join('\n\n');

function setup(fence: (blocks: BlockView[]) => string[], markdown = source) {
  const ydoc = makeYDoc(markdown);
  const blocks = readBlocks(ydoc);
  let count = 0;
  const run: ApplierRun = {
    runId: 'run1',
    fence: new Set(fence(blocks)),
    instructions: new Set(['i1', 'i2']),
    allowedOps: new Set(opKinds),
    makeId: () => `new${++count}`,
  };
  // One origin object per run: the undo manager tracks that object.
  const origin = runOrigin('run1');
  const manager = runUndoManager(ydoc, origin);
  return { ydoc, blocks, run, manager, origin };
}

const items = (blocks: BlockView[]) => blocks.filter((block) => block.type === 'list_item');
const texts = (ydoc: Y.Doc) => readBlocks(ydoc).filter((block) => block.type === 'list_item').map((block) => block.markdown);
const remove = (block: BlockView, instructionId = 'i1'): Op => ({ op: 'delete_block', blockId: block.id, expectHash: block.hash, instructionId });
const replace = (block: BlockView, markdown: string, instructionId = 'i1'): Op => ({ op: 'replace_block', blockId: block.id, markdown, expectHash: block.hash, instructionId });

/** The `deleting` run of every list item of the live text, in order. */
function itemMarks(ydoc: Y.Doc): (string | null)[] {
  const marks: (string | null)[] = [];
  readProseMirrorDoc(ydoc).descendants((node) => {
    if (node.type.name === 'list_item') marks.push(node.attrs.deleting === null ? null : JSON.parse(node.attrs.deleting).runId);
    return true;
  });
  return marks;
}

describe('nested blocks (OP12)', () => {
  it('[OP12] lists every item and every block inside an item or a quote, in document order, with its parent and type', () => {
    const blocks = readBlocks(makeYDoc(source));
    expect(blocks.map(({ type, markdown }) => [type, markdown])).toEqual([
      ['paragraph', 'Intro'],
      ['bullet_list', '* first item\n* second item\n* third item'],
      ['list_item', 'first item'],
      ['paragraph', 'first item'],
      ['list_item', 'second item'],
      ['paragraph', 'second item'],
      ['list_item', 'third item'],
      ['paragraph', 'third item'],
      ['blockquote', '> quoted words'],
      ['paragraph', 'quoted words'],
      ['paragraph', 'Outro'],
    ]);
    const byId = new Map(blocks.map((block) => [block.id, block]));
    expect(new Set(blocks.map((block) => block.id)).size).toBe(blocks.length);
    expect(blocks.map((block) => (block.parentId === null ? null : byId.get(block.parentId)!.type))).toEqual([
      null, null, 'bullet_list', 'list_item', 'bullet_list', 'list_item', 'bullet_list', 'list_item', null, 'blockquote', null,
    ]);
  });

  it('[OP12][OP7] a delete of one item of three marks only that item; Accept removes it alone, Discard restores it', () => {
    for (const decision of ['accept', 'discard'] as const) {
      const { ydoc, blocks, run, manager, origin } = setup((all) => [items(all)[1].id]);
      const second = items(blocks)[1];
      const result = applyOps(ydoc, [remove(second)], run, origin);
      expect(result.ok, JSON.stringify(result)).toBe(true);
      expect(itemMarks(ydoc)).toEqual([null, 'run1', null]);
      // The API reads the text as Accept would leave it.
      expect(texts(ydoc)).toEqual(['first item', 'third item']);
      expect(readBlocks(ydoc).find((block) => block.type === 'bullet_list')!.markdown).toBe('* first item\n* third item');
      if (decision === 'accept') {
        acceptRunText(ydoc, 'run1', serverOrigin);
        expect(itemMarks(ydoc)).toEqual([null, null]);
        expect(texts(ydoc)).toEqual(['first item', 'third item']);
      } else {
        expect(undoRun(manager)).toBe(true);
        expect(itemMarks(ydoc)).toEqual([null, null, null]);
        expect(readBlocks(ydoc).map((block) => block.id)).toEqual(blocks.map((block) => block.id));
      }
    }
  });

  it('[OP12] replaces a list item with the Markdown of its content, keeping its id, and inserts a sibling item after one', () => {
    const { ydoc, blocks, run, origin } = setup((all) => [items(all)[0].id, items(all)[2].id]);
    const [first, , third] = items(blocks);
    const ops: Op[] = [
      replace(first, 'first **bold** item'),
      { op: 'insert_after', blockId: third.id, markdown: 'fourth item', instructionId: 'i2' },
    ];
    const result = applyOps(ydoc, ops, run, origin);
    expect(result.ok, JSON.stringify(result)).toBe(true);
    const after = readBlocks(ydoc);
    expect(items(after).map((block) => block.markdown)).toEqual(['first **bold** item', 'second item', 'third item', 'fourth item']);
    expect(items(after)[0].id).toBe(first.id);
    // The item's paragraph keeps its id too: the replacement is diffed in place.
    expect(after.find((block) => block.parentId === first.id)!.id).toBe(blocks.find((block) => block.parentId === first.id)!.id);
    const list = after.find((block) => block.type === 'bullet_list')!;
    expect(items(after).every((item) => item.parentId === list.id)).toBe(true);
    expect(new Set(after.map((block) => block.id)).size).toBe(after.length);
    if (!result.ok) return;
    expect(result.changes.map(({ op, before, after: written }) => [op, before, written])).toEqual([
      ['replace_block', 'first item', 'first **bold** item'],
      ['insert_after', null, 'fourth item'],
    ]);
  });

  it('[OP12] a whole list is still replaced as one block, its items keeping their ids where they stay', () => {
    const { ydoc, blocks, run, origin } = setup((all) => [all[1].id]);
    const list = blocks[1];
    expect(applyOps(ydoc, [replace(list, '- first item\n- second item, changed\n- third item\n- new')], run, origin).ok).toBe(true);
    const after = items(readBlocks(ydoc));
    expect(after.map((block) => block.markdown)).toEqual(['first item', 'second item, changed', 'third item', 'new']);
    expect(after.slice(0, 3).map((block) => block.id)).toEqual(items(blocks).map((block) => block.id));
  });

  it('[OP12][STALE_BLOCK] a parent\'s hash covers its children; an item\'s hash only itself', () => {
    const { ydoc, blocks, run, origin } = setup((all) => [all[1].id]);
    const list = blocks[1];
    const [first, second] = items(blocks);
    // A person types in the first item.
    const person = replicaOf(ydoc, 7);
    const ytext = (docParts(person).content.get(1) as Y.XmlElement).get(0) as Y.XmlElement;
    ((ytext.get(0) as Y.XmlElement).get(0) as Y.XmlText).insert(0, 'very ');
    Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(person));
    expect(texts(ydoc)[0]).toBe('very first item');
    const stale = applyOps(ydoc, [remove(list)], run, origin);
    expect(stale.ok || stale.error).toMatchObject({ code: 'STALE_BLOCK', blockId: list.id });
    expect(applyOps(ydoc, [replace(first, 'x')], run, origin)).toMatchObject({ ok: false, error: { code: 'STALE_BLOCK' } });
    // The second item did not change: an op on it, inside the fenced list, is applied.
    expect(applyOps(ydoc, [remove(second)], run, origin).ok).toBe(true);
    expect(texts(ydoc)).toEqual(['very first item', 'third item']);
  });

  it('[OP12][OUTSIDE_FENCE] an instruction on an item fences that item only, not its list nor its siblings', () => {
    const { ydoc, blocks, run, origin } = setup((all) => [items(all)[1].id]);
    const [first] = items(blocks);
    expect(applyOps(ydoc, [remove(blocks[1])], run, origin)).toMatchObject({ ok: false, error: { code: 'OUTSIDE_FENCE', blockId: blocks[1].id } });
    expect(applyOps(ydoc, [remove(first)], run, origin)).toMatchObject({ ok: false, error: { code: 'OUTSIDE_FENCE', blockId: first.id } });
    // The paragraph inside the fenced item is inside the fence.
    const inner = blocks.find((block) => block.parentId === items(blocks)[1].id)!;
    expect(applyOps(ydoc, [replace(inner, 'second, rewritten')], run, origin).ok).toBe(true);
    expect(texts(ydoc)).toEqual(['first item', 'second, rewritten', 'third item']);
  });

  it('[OP12][INVALID_OP] refuses a batch that changes a block and a block inside it when either replaces or deletes', () => {
    const { ydoc, blocks, run, origin } = setup((all) => [all[1].id]);
    const list = blocks[1];
    const [first] = items(blocks);
    const before = Y.encodeStateAsUpdate(ydoc);
    const outer = applyOps(ydoc, [remove(list), remove(first, 'i2')], run, origin);
    expect(outer.ok || outer.error).toMatchObject({ code: 'INVALID_OP', index: 1, blockId: first.id });
    const inner = applyOps(ydoc, [{ op: 'insert_after', blockId: first.id, markdown: 'x', instructionId: 'i1' }, replace(list, '- y')], run, origin);
    expect(inner.ok || inner.error).toMatchObject({ code: 'INVALID_OP', index: 1, blockId: list.id });
    expect(Y.encodeStateAsUpdate(ydoc)).toEqual(before);
    // An insert after the list and a change inside it are no conflict.
    expect(applyOps(ydoc, [{ op: 'insert_after', blockId: list.id, markdown: 'After', instructionId: 'i1' }, remove(first)], run, origin).ok).toBe(true);
  });

  it('[OP12] Accept of a delete of the last item of a list removes the list with it', () => {
    const { ydoc, blocks, run, origin } = setup((all) => [all[1].id], 'Intro\n\n- only item\n\nOutro');
    expect(applyOps(ydoc, [remove(items(blocks)[0])], run, origin).ok).toBe(true);
    acceptRunText(ydoc, 'run1', serverOrigin);
    expect(readBlocks(ydoc).map((block) => block.type)).toEqual(['paragraph', 'paragraph']);
  });

  it('[OP12][REV12] two instructions on two items of one list are accepted and discarded item by item', () => {
    const { ydoc, blocks, run, manager, origin } = setup((all) => [items(all)[0].id, items(all)[2].id]);
    const [first, , third] = items(blocks);
    const ops = [replace(first, 'first, changed', 'i1'), remove(third, 'i2')];
    const result = applyOps(ydoc, ops, run, origin);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    manager.stopCapturing();
    tagBatch(manager, 0, result.parts);
    // Discard i2 alone: the third item is back, the first item keeps i1's change.
    expect(undoRunItems(manager, result.changes, new Set(['i2']))).toBe(true);
    expect(itemMarks(ydoc)).toEqual([null, null, null]);
    expect(texts(ydoc)).toEqual(['first, changed', 'second item', 'third item']);
    // Accept i1: its marks go, nothing else changes.
    acceptRunText(ydoc, 'run1', serverOrigin, itemsOfRun(manager, result.changes, new Set(['i1'])));
    expect(JSON.stringify(readProseMirrorDoc(ydoc).toJSON())).not.toContain('"change"');
    expect(texts(ydoc)).toEqual(['first, changed', 'second item', 'third item']);
  });

  it('[OP12][REV12] Accept of one item carries out only that item\'s nested delete', () => {
    const { ydoc, blocks, run, manager, origin } = setup((all) => [items(all)[0].id, items(all)[2].id]);
    const [first, , third] = items(blocks);
    const result = applyOps(ydoc, [remove(first, 'i1'), remove(third, 'i2')], run, origin);
    if (!result.ok) throw new Error(result.error.message);
    manager.stopCapturing();
    tagBatch(manager, 0, result.parts);
    acceptRunText(ydoc, 'run1', serverOrigin, itemsOfRun(manager, result.changes, new Set(['i2'])));
    expect(itemMarks(ydoc)).toEqual(['run1', null]);
    expect(pendingDeletes(ydoc, 'run1').map((state) => state.pending.blockId)).toEqual([first.id]);
  });

  it('[OP12][REV7] Discard keeps what a person typed in an item the run inserted and in an item it deleted', () => {
    const { ydoc, blocks, run, manager, origin } = setup((all) => [items(all)[1].id]);
    const second = items(blocks)[1];
    const result = applyOps(ydoc, [{ op: 'insert_after', blockId: second.id, markdown: 'inserted', instructionId: 'i1' }], run, origin);
    expect(result.ok).toBe(true);
    const person = replicaOf(ydoc, 9);
    const list = docParts(person).content.get(1) as Y.XmlElement;
    const textOf = (index: number) => ((list.get(index) as Y.XmlElement).get(0) as Y.XmlElement).get(0) as Y.XmlText;
    textOf(2).insert(textOf(2).length, ' and typed');
    Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(person));
    expect(texts(ydoc)).toEqual(['first item', 'second item', 'inserted and typed', 'third item']);
    expect(undoRun(manager)).toBe(true);
    expect(texts(ydoc)).toEqual(['first item', 'second item', ' and typed', 'third item']);
    const ids = readBlocks(ydoc).map((block) => block.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('[OP12] an annotation pinned inside a list item targets that item', () => {
    const ydoc = makeYDoc(source);
    const blocks = readBlocks(ydoc);
    const doc = readProseMirrorDoc(ydoc);
    let at = -1;
    doc.descendants((node, pos) => {
      if (node.isText && node.text === 'second item') at = pos;
      return at < 0;
    });
    expect(anchorFromRange(ydoc, at + 7, at + 11).blockId).toBe(items(blocks)[1].id);
    // In a quote, the pin targets the quote, as a top-level block.
    let quoted = -1;
    doc.descendants((node, pos) => {
      if (node.isText && node.text === 'quoted words') quoted = pos;
      return quoted < 0;
    });
    expect(anchorFromRange(ydoc, quoted, quoted + 6).blockId).toBe(blocks.find((block) => block.type === 'blockquote')!.id);
  });

  it('[OP12] a text written before nested blocks had ids reads with the ids the server and every editor then give them', () => {
    // Parsed without ids below the top level, as such a document was stored.
    const ydoc = makeBlocksYDoc(['Intro', '- one\n- two', '> quoted']);
    const read = readBlocks(ydoc);
    expect(read.map((block) => block.id)).toEqual(['b0', 'b1', derivedBlockId('b1', 0), derivedBlockId(derivedBlockId('b1', 0), 0), derivedBlockId('b1', 1), derivedBlockId(derivedBlockId('b1', 1), 0), 'b2', derivedBlockId('b2', 0)]);
    // An editor opening it gives the same ids as the server's migration.
    const editor = EditorState.create({ doc: readProseMirrorDoc(ydoc), plugins: [blockIdsPlugin(() => 'random')] });
    const edited = editor.apply(editor.tr.insertText('!', 1));
    const editorIds: string[] = [];
    edited.doc.descendants((node) => {
      if (node.attrs.id !== undefined) editorIds.push(node.attrs.id);
      return !node.isTextblock;
    });
    expect(editorIds).toEqual(read.map((block) => block.id));
    const replica = replicaOf(ydoc, 5);
    expect(giveNestedIds(ydoc, serverOrigin)).toBe(5);
    expect(giveNestedIds(replica, serverOrigin)).toBe(5);
    // Both peers wrote the same values: merged, they agree, and nothing is left to give.
    Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(replica));
    expect(readBlocks(ydoc)).toEqual(read);
    expect(giveNestedIds(ydoc, serverOrigin)).toBe(0);
    // And the ids the API showed now address the blocks.
    const item = read[4];
    const run: ApplierRun = { runId: 'r', fence: new Set([item.id]), instructions: new Set(['i1']), allowedOps: new Set(opKinds), makeId: () => 'n1' };
    expect(applyOps(ydoc, [remove(item)], run, runOrigin('r')).ok).toBe(true);
    expect(readBlocks(ydoc).filter((block) => block.type === 'list_item').map((block) => block.markdown)).toEqual(['one']);
  });

  it('[OP12] new blocks inside what an op writes get ids of their own', () => {
    const { ydoc, blocks, run, origin } = setup((all) => [all[0].id]);
    expect(applyOps(ydoc, [{ op: 'insert_after', blockId: blocks[0].id, markdown: '- a\n- b\n\n> c', instructionId: 'i1' }], run, origin).ok).toBe(true);
    const after = readBlocks(ydoc);
    expect(after.every((block) => block.id !== '')).toBe(true);
    expect(new Set(after.map((block) => block.id)).size).toBe(after.length);
    expect(markdownToBlocks('x')[0].type).toBe(schema.nodes.paragraph);
  });
});
