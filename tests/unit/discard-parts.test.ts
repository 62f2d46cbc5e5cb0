import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { applyOps, type ApplierRun, type Change } from '../../shared/applier/applier.ts';
import { redoKeepingParts } from '../../shared/applier/discard-parts.ts';
import { holdsParts, tagBatch } from '../../shared/applier/item-parts.ts';
import { opKinds } from '../../shared/applier/op-kinds.ts';
import { undoRunItems } from '../../shared/applier/run-items.ts';
import { keepRunDeletions, restoreRunScope, runUndoManager, saveRunScope, undoRun } from '../../shared/applier/run-scope.ts';
import { readBlocks } from '../../shared/model/doc-content.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { runOrigin } from '../../shared/model/origins.ts';
import { readTopBlocks } from '../helpers/applier-fixture.ts';
import { makeBlocksYDoc } from '../helpers/doc-builder.ts';

/*
 * Undo discard keeps each item's part (REV9, REV12): after a Discard (of the run, or of its items
 * one by one) is redone, the run's manager holds one part per instruction again, on the copies
 * the redo made, so two instructions that changed one paragraph are still decided apart, also
 * with a person's typing in between and across a store round trip.
 */

function twoItemsInOneParagraph() {
  const ydoc = makeBlocksYDoc(['alpha one two', 'end']);
  const origin = runOrigin('run');
  let manager = runUndoManager(ydoc, origin);
  const clients = new Map([
    ['first', 1001],
    ['second', 1002],
  ]);
  const run: ApplierRun = {
    runId: 'run',
    fence: new Set(readTopBlocks(ydoc).map((block) => block.id)),
    instructions: new Set(clients.keys()),
    allowedOps: new Set(opKinds),
    makeId: () => 'n1',
    writerFor: (id) => clients.get(id) ?? 1,
  };
  const changes: Change[] = [];
  for (const [instructionId, markdown] of [
    ['first', 'ALPHA one two'],
    ['second', 'ALPHA one TWO'],
  ]) {
    const [block] = readTopBlocks(ydoc);
    manager.stopCapturing();
    const from = manager.undoStack.length;
    const result = applyOps(ydoc, [{ op: 'replace_block', blockId: block.id, expectHash: block.hash, markdown, instructionId }], run, origin);
    if (!result.ok) throw new Error(result.error.message);
    manager.stopCapturing();
    changes.push(...result.changes);
    tagBatch(manager, from, result.parts);
  }
  const text = () => readBlocks(ydoc).map((block) => block.markdown);
  const discard = (instructionId: string) => undoRunItems(manager, changes, new Set([instructionId]), { runId: 'run', instructionIds: new Set() });
  /** A person types at the end of the first paragraph. */
  const type = (typed: string) => {
    const paragraph = docParts(ydoc).content.get(0) as Y.XmlElement;
    const ytext = paragraph.get(0) as Y.XmlText;
    ytext.insert(ytext.length, typed);
  };
  return {
    ydoc,
    text,
    discard,
    type,
    get manager() {
      return manager;
    },
    /** The scope saved and read back over a reloaded copy of the text, as after a restart. */
    restart() {
      const saved = saveRunScope(manager);
      expect(saved.items).not.toBeNull();
      const reloaded = new Y.Doc({ gc: true, gcFilter: keepRunDeletions([saved]) });
      Y.applyUpdate(reloaded, Y.encodeStateAsUpdate(ydoc));
      manager = restoreRunScope(reloaded, origin, saved);
      return reloaded;
    },
  };
}

describe('Undo discard keeps each item’s part (REV9, REV12)', () => {
  it('[REV9][REV12] after Discard run is redone, discarding one item keeps the other’s change and a person’s typing', () => {
    const run = twoItemsInOneParagraph();
    expect(run.text()).toEqual(['ALPHA one TWO', 'end']);
    expect(undoRun(run.manager)).toBe(true);
    expect(run.text()).toEqual(['alpha one two', 'end']);
    run.type(' typed');
    redoKeepingParts(run.manager);
    expect(run.text()).toEqual(['ALPHA one TWO typed', 'end']);
    expect(holdsParts(run.manager)).toBe(true);
    expect(run.discard('first')).toBe(true);
    expect(run.text()).toEqual(['alpha one TWO typed', 'end']);
    expect(run.discard('second')).toBe(true);
    expect(run.text()).toEqual(['alpha one two typed', 'end']);
  });

  it('[REV9][REV12] keeps the parts through two rounds of Discard run and Undo discard', () => {
    const run = twoItemsInOneParagraph();
    for (let round = 0; round < 2; round++) {
      expect(undoRun(run.manager)).toBe(true);
      expect(run.text()).toEqual(['alpha one two', 'end']);
      redoKeepingParts(run.manager);
      expect(run.text()).toEqual(['ALPHA one TWO', 'end']);
    }
    expect(run.discard('second')).toBe(true);
    expect(run.text()).toEqual(['ALPHA one two', 'end']);
  });

  it('[REV9][REV12] after items discarded one by one are redone, the parts hold across a store round trip', () => {
    const run = twoItemsInOneParagraph();
    expect(run.discard('second')).toBe(true);
    expect(run.discard('first')).toBe(true);
    expect(run.text()).toEqual(['alpha one two', 'end']);
    redoKeepingParts(run.manager);
    expect(run.text()).toEqual(['ALPHA one TWO', 'end']);
    const reloaded = run.restart();
    expect(run.discard('second')).toBe(true);
    expect(readBlocks(reloaded).map((block) => block.markdown)).toEqual(['ALPHA one two', 'end']);
  });
});
