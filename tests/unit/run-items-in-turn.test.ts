import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { applyOps, type ApplierRun, type Change } from '../../shared/applier/applier.ts';
import { tagBatch } from '../../shared/applier/item-parts.ts';
import { opKinds } from '../../shared/applier/op-kinds.ts';
import type { Op } from '../../shared/applier/ops.ts';
import { acceptRunText } from '../../shared/applier/pending-delete.ts';
import { itemsOfRun, keepInScope, undoRunItems } from '../../shared/applier/run-items.ts';
import { runUndoManager } from '../../shared/applier/run-scope.ts';
import { readProseMirrorDoc } from '../../shared/model/doc-content.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { runOrigin, serverOrigin } from '../../shared/model/origins.ts';
import { readTopBlocks } from '../helpers/applier-fixture.ts';
import { makeBlocksYDoc, replicaOf } from '../helpers/doc-builder.ts';

/*
 * Two items of one run that rewrite one block in turn (REV12, OP7), decided apart: the later
 * item built on the earlier one's text or block. Deciding them one by one keeps what a person
 * typed, leaves no change mark of a discarded item and no two blocks with one id. Each item
 * writes under a client id of its own (WHO3), as on the server.
 */

function setup(parts: string[]) {
  const ydoc = makeBlocksYDoc(parts);
  const origin = runOrigin('run');
  const manager = runUndoManager(ydoc, origin);
  const clients = new Map([
    ['first', 1001],
    ['second', 1002],
  ]);
  let count = 0;
  const run: ApplierRun = {
    runId: 'run',
    fence: new Set(readTopBlocks(ydoc).map((block) => block.id)),
    instructions: new Set(clients.keys()),
    allowedOps: new Set(opKinds),
    makeId: () => `n${++count}`,
    writerFor: (id) => clients.get(id) ?? 1,
  };
  const changes: Change[] = [];
  /** One batch of the run, split into one part per instruction as the server does. */
  const batch = (ops: Op[]) => {
    manager.stopCapturing();
    const from = manager.undoStack.length;
    const result = applyOps(ydoc, ops, run, origin);
    if (!result.ok) throw new Error(result.error.message);
    manager.stopCapturing();
    changes.push(...result.changes);
    tagBatch(manager, from, result.parts);
  };
  const block = (id: string) => {
    const found = readTopBlocks(ydoc).find((each) => each.id === id);
    if (!found) throw new Error(`no block ${id}`);
    return found;
  };
  const accept = (id: string) => {
    const only = itemsOfRun(manager, changes, new Set([id]));
    const { removed } = acceptRunText(ydoc, 'run', serverOrigin, only);
    keepInScope(manager, removed, new Set([id]));
  };
  const discard = (id: string, accepted: string[]) => undoRunItems(manager, changes, new Set([id]), { runId: 'run', instructionIds: new Set(accepted) });
  return { ydoc, batch, block, accept, discard };
}

/** Each run of text of `ydoc`'s blocks with the instruction of its change mark (null: none). */
function markedTexts(ydoc: Y.Doc): [string, string | null][][] {
  const out: [string, string | null][][] = [];
  readProseMirrorDoc(ydoc).forEach((block) => {
    const runs: [string, string | null][] = [];
    block.forEach((text) => {
      const mark = text.marks.find((each) => each.type.name === 'change');
      runs.push([text.text ?? '', mark ? (mark.attrs.instructionId as string) : null]);
    });
    out.push(runs);
  });
  return out;
}

describe('two items rewriting one block in turn, decided apart (REV12)', () => {
  it('[REV12] Discard of the earlier item leaves no mark of it where the later item had reopened it, on the text a person typed', () => {
    const { ydoc, batch, block, accept, discard } = setup(['Xa', 'other']);
    batch([{ op: 'replace_block', blockId: 'b0', markdown: 'b X', expectHash: block('b0').hash, instructionId: 'first' }]);
    // The second item writes inside the first one's marked text: its part reopens the first one's mark after its own letter.
    batch([{ op: 'replace_block', blockId: 'b0', markdown: 'ba X', expectHash: block('b0').hash, instructionId: 'second' }]);
    expect(markedTexts(ydoc)[0]).toEqual([
      ['b', 'first'],
      ['a', 'second'],
      [' ', 'first'],
      ['X', null],
    ]);
    expect(discard('first', [])).toBe(true);
    // The first item's text is gone and the letter it deleted is back; the X a person typed carries no mark.
    expect(markedTexts(ydoc)[0]).toEqual([
      ['a', 'second'],
      ['Xa', null],
    ]);
    accept('second');
    expect(markedTexts(ydoc)).toEqual([[['aXa', null]], [['other', null]]]);
  });

  it('[REV12][OP7] Accept of the item that changed the type back, then Discard of the one that changed it, keeps ids unique and the letter a person typed', () => {
    const { ydoc, batch, block, accept, discard } = setup(['a', 'other']);
    batch([{ op: 'replace_block', blockId: 'b0', markdown: '## a', expectHash: block('b0').hash, instructionId: 'first' }]);
    // The heading took the paragraph's id; the second item makes it a paragraph again.
    batch([{ op: 'replace_block', blockId: 'b0', markdown: 'a', expectHash: block('b0').hash, instructionId: 'second' }]);
    // A person types into the paragraph the first item replaced (pending deletion).
    const person = replicaOf(ydoc, 7);
    const original = docParts(person).content.get(0) as Y.XmlElement;
    (original.get(0) as Y.XmlText).insert(0, 'Z');
    Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(person));
    accept('second');
    expect(discard('first', ['second'])).toBe(true);
    const blocks = readTopBlocks(ydoc);
    expect(blocks.map((each) => each.markdown)).toEqual(['Za', 'a', 'other']);
    expect(new Set(blocks.map((each) => each.id)).size).toBe(blocks.length);
    // The paragraph the first item had replaced is back with its own id.
    expect(blocks[0].id).toBe('b0');
    expect(JSON.stringify(readProseMirrorDoc(ydoc).toJSON())).not.toMatch(/"change"|"deleting":"/);
  });
});
