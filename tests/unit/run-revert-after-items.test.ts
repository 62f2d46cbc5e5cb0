import { describe, expect, it } from 'vitest';
import { applyOps, type ApplierRun, type Change } from '../../shared/applier/applier.ts';
import { tagBatch } from '../../shared/applier/item-parts.ts';
import { opKinds } from '../../shared/applier/op-kinds.ts';
import type { Op } from '../../shared/applier/ops.ts';
import { acceptRunText } from '../../shared/applier/pending-delete.ts';
import { itemsOfRun, keepInScope, undoRunItems } from '../../shared/applier/run-items.ts';
import { applyRevert, planRevert } from '../../shared/applier/run-revert.ts';
import { runUndoManager, saveRunScope, undoRun } from '../../shared/applier/run-scope.ts';
import { readProseMirrorDoc } from '../../shared/model/doc-content.ts';
import { revertOrigin, runOrigin, serverOrigin } from '../../shared/model/origins.ts';
import { readTopBlocks } from '../helpers/applier-fixture.ts';
import { makeBlocksYDoc } from '../helpers/doc-builder.ts';

/*
 * What a discarded item wrote never comes back (REV12), also through the whole-run steps after
 * item decisions: an accepted item may have removed a block that a discarded item had written
 * (the accepted item changed its type back, OP7); Revert run and Discard run do not restore it.
 */

function paragraphMadeHeadingAndBack() {
  const ydoc = makeBlocksYDoc(['a', 'other']);
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
  const batch = (ops: Op[]) => {
    manager.stopCapturing();
    const from = manager.undoStack.length;
    const result = applyOps(ydoc, ops, run, origin);
    if (!result.ok) throw new Error(result.error.message);
    manager.stopCapturing();
    changes.push(...result.changes);
    tagBatch(manager, from, result.parts);
  };
  const hash = () => readTopBlocks(ydoc).find((block) => block.id === 'b0')?.hash ?? '';
  batch([{ op: 'replace_block', blockId: 'b0', markdown: '## a', expectHash: hash(), instructionId: 'first' }]);
  // The heading took the paragraph's id (the paragraph waits, pending deletion, before it); the second item makes it a paragraph again.
  batch([{ op: 'replace_block', blockId: 'b0', markdown: 'a', expectHash: hash(), instructionId: 'second' }]);
  // Accept of the second item removes the heading; Discard of the first gives the paragraph back.
  const only = itemsOfRun(manager, changes, new Set(['second']));
  keepInScope(manager, acceptRunText(ydoc, 'run', serverOrigin, only).removed, new Set(['second']));
  expect(undoRunItems(manager, changes, new Set(['first']), { runId: 'run', instructionIds: new Set(['second']) })).toBe(true);
  expect(readTopBlocks(ydoc).map((block) => block.markdown)).toEqual(['a', 'a', 'other']);
  return { ydoc, manager };
}

describe('whole-run steps after item decisions (REV8, REV7, REV12)', () => {
  it('[REV8][REV12] Revert of the accepted item does not bring back the heading the discarded item wrote', () => {
    const { ydoc, manager } = paragraphMadeHeadingAndBack();
    expect(applyRevert(ydoc, planRevert(ydoc, saveRunScope(manager), []), revertOrigin('run'))).toBe(true);
    const blocks = readTopBlocks(ydoc);
    expect(blocks.map((block) => block.markdown)).toEqual(['a', 'other']);
    expect(blocks.map((block) => block.id)).toEqual(['b0', 'b1']);
    expect(JSON.stringify(readProseMirrorDoc(ydoc).toJSON())).not.toMatch(/"change"|"deleting":"/);
  });

  it('[REV7][REV12] Discard run after them does not bring it back either', () => {
    const { ydoc, manager } = paragraphMadeHeadingAndBack();
    expect(undoRun(manager)).toBe(true);
    expect(readTopBlocks(ydoc).map((block) => block.markdown)).toEqual(['a', 'other']);
    expect(JSON.stringify(readProseMirrorDoc(ydoc).toJSON())).not.toMatch(/"change"|"deleting":"/);
  });
});
