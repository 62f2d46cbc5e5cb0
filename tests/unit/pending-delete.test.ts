import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { applyOps } from '../../shared/applier/applier.ts';
import { readProseMirrorDoc } from '../../shared/model/doc-content.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { acceptRunText, notAppliedNote, parsePendingDelete, pendingDeletes } from '../../shared/applier/pending-delete.ts';
import { runUndoManager, undoRun } from '../../shared/applier/run-scope.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { bytes, markdowns, replaceOp, setup } from '../helpers/applier-fixture.ts';

const source = ['# Title', 'Alpha beta', 'Gamma delta', 'Outside the fence'].join('\n\n');

function topIds(ydoc: Y.Doc): unknown[] {
  return docParts(ydoc).content.toArray().map((block) => (block as Y.XmlElement).getAttribute('id'));
}

function pendingOf(ydoc: Y.Doc, index: number) {
  return parsePendingDelete((docParts(ydoc).content.get(index) as Y.XmlElement).getAttribute('deleting'));
}

describe('deletion on Accept (OP7)', () => {
  it('[OP7] a delete marks the block and leaves it in the text; readers and later ops see it gone', () => {
    const { ydoc, blocks, run, origin } = setup(source);
    const alpha = blocks[1];
    expect(applyOps(ydoc, [{ op: 'delete_block', blockId: alpha.id, expectHash: alpha.hash, instructionId: 'i1' }], run, origin).ok).toBe(true);
    expect(readProseMirrorDoc(ydoc).child(1).textContent).toBe('Alpha beta');
    expect(pendingOf(ydoc, 1)).toMatchObject({ runId: 'run1', blockId: alpha.id, hash: alpha.hash });
    expect(markdowns(ydoc)).toEqual(['# Title', 'Gamma delta', 'Outside the fence']);

    const before = bytes(ydoc);
    const again = applyOps(ydoc, [replaceOp(alpha, 'Alpha again')], run, origin);
    expect(again).toMatchObject({ ok: false, error: { code: 'STALE_BLOCK', blockId: alpha.id } });
    const after = applyOps(ydoc, [{ op: 'insert_after', blockId: alpha.id, markdown: 'x', instructionId: 'i1' }], run, origin);
    expect(after).toMatchObject({ ok: false, error: { code: 'STALE_BLOCK' } });
    expect(bytes(ydoc)).toEqual(before);
  });

  it('[OP7] a replacement by another block type keeps the old node under a fresh id, and gives its id to the new block', () => {
    const { ydoc, blocks, run, origin } = setup(source);
    const alpha = blocks[1];
    expect(applyOps(ydoc, [replaceOp(alpha, '## Alpha heading')], run, origin).ok).toBe(true);
    expect(topIds(ydoc)).toEqual([blocks[0].id, 'new1', alpha.id, blocks[2].id, blocks[3].id]);
    expect(pendingOf(ydoc, 1)).toMatchObject({ runId: 'run1', blockId: alpha.id, hash: alpha.hash });
    expect(markdowns(ydoc)).toEqual(['# Title', '## Alpha heading', 'Gamma delta', 'Outside the fence']);
  });
});

describe('Accept (REV6)', () => {
  it('[REV6] removes unchanged pending blocks and keeps one a person typed in, naming the writer', () => {
    const { ydoc, blocks, run, origin } = setup(source);
    const [, alpha, gamma] = blocks;
    const person = new Y.Doc();
    person.clientID = 4242;
    Y.applyUpdate(person, Y.encodeStateAsUpdate(ydoc));
    appendToBlock(person, 1, ' typed offline');
    const ops = [alpha, gamma].map((block) => ({ op: 'delete_block' as const, blockId: block.id, expectHash: block.hash, instructionId: 'i1' }));
    expect(applyOps(ydoc, ops, run, origin).ok).toBe(true);
    Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(person));

    const states = pendingDeletes(ydoc, 'run1');
    expect(states.map((state) => [state.pending.blockId, state.changed, state.clients])).toEqual([
      [alpha.id, true, [4242]],
      [gamma.id, false, []],
    ]);
    acceptRunText(ydoc, 'run1', serverOrigin);
    expect(readProseMirrorDoc(ydoc).toJSON().content.map((block: { attrs: { deleting: unknown } }) => block.attrs.deleting)).toEqual([null, null, null]);
    expect(markdowns(ydoc)).toEqual(['# Title', 'Alpha beta typed offline', 'Outside the fence']);
  });

  it('[REV6] words the note of a change it does not apply', () => {
    expect(notAppliedNote(['Ana'], 'delete_block')).toBe('Not applied: changed by Ana meanwhile; the block is kept.');
    expect(notAppliedNote(['Ana', 'Bo', 'Cy'], 'replace_block')).toBe('Not applied: changed by Ana, Bo and Cy meanwhile; the block is kept beside the new text.');
    expect(notAppliedNote([], 'delete_block')).toBe('Not applied: changed by someone meanwhile; the block is kept.');
  });
});

describe('Discard (REV2, REV7)', () => {
  it('[REV2][OP7] brings a deleted block back with what a person typed in it concurrently', () => {
    const { ydoc, blocks, run, origin } = setup(source);
    const alpha = blocks[1];
    const person = new Y.Doc();
    Y.applyUpdate(person, Y.encodeStateAsUpdate(ydoc));
    appendToBlock(person, 1, ' typed offline');
    const manager = runUndoManager(ydoc, origin);
    expect(applyOps(ydoc, [replaceOp(alpha, '- now a list')], run, origin).ok).toBe(true);
    Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(person));
    expect(undoRun(manager)).toBe(true);
    expect(markdowns(ydoc)).toEqual(['# Title', 'Alpha beta typed offline', 'Gamma delta', 'Outside the fence']);
    expect(topIds(ydoc)).toEqual(blocks.map((block) => block.id));
  });

  it('[REV7] keeps a block the run wrote that a person typed in, with only the person’s text and an id of its own', () => {
    const { ydoc, blocks, run, origin } = setup(source);
    const alpha = blocks[1];
    const manager = runUndoManager(ydoc, origin);
    expect(applyOps(ydoc, [replaceOp(alpha, '## Alpha heading')], run, origin).ok).toBe(true);
    appendToBlock(ydoc, 2, ' mine');
    expect(undoRun(manager)).toBe(true);
    expect(markdowns(ydoc)).toEqual(['# Title', 'Alpha beta', '##  mine', 'Gamma delta', 'Outside the fence']);
    const ids = topIds(ydoc);
    expect(ids[1]).toBe(alpha.id);
    expect(new Set(ids).size).toBe(5);
  });
});
