import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { applyOps } from '../../shared/applier/applier.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { revertOrigin, serverOrigin, type Origin } from '../../shared/model/origins.ts';
import { acceptRunText } from '../../shared/applier/pending-delete.ts';
import { applyRevert, planRevert } from '../../shared/applier/run-revert.ts';
import { runUndoManager, saveRunScope, withDeletions } from '../../shared/applier/run-scope.ts';
import { appendToBlock, replicaOf } from '../helpers/doc-builder.ts';
import { markdowns, replaceOp, setup, readTopBlocks } from '../helpers/applier-fixture.ts';

const source = ['# Title', 'Alpha beta', 'Gamma delta', 'Outside the fence'].join('\n\n');

/** A run that rewrites the title and deletes `Alpha beta`, accepted; its scope with Accept's removal. */
function acceptedRun() {
  const { ydoc, blocks, run, origin } = setup(source);
  const manager = runUndoManager(ydoc, origin);
  const [title, alpha] = blocks;
  const ops = [replaceOp(title, '# New title'), { op: 'delete_block' as const, blockId: alpha.id, expectHash: alpha.hash, instructionId: 'i1' }];
  expect(applyOps(ydoc, ops, run, origin).ok).toBe(true);
  ydoc.gc = false;
  const { removed } = acceptRunText(ydoc, run.runId, serverOrigin);
  ydoc.gc = true;
  const scope = withDeletions(saveRunScope(manager), removed);
  manager.destroy();
  expect(markdowns(ydoc)).toEqual(['# New title', 'Gamma delta', 'Outside the fence']);
  return { ydoc, blocks, scope, changes: [{ op: 'replace_block', blockId: title.id, instructionId: 'i1' }] };
}

describe('revert of an accepted run (REV8)', () => {
  it('[REV8] takes the run back as one transaction with the revert origin, the block Accept removed included', () => {
    const { ydoc, blocks, scope, changes } = acceptedRun();
    const origins: unknown[] = [];
    ydoc.on('afterTransaction', (transaction: Y.Transaction) => origins.push(transaction.origin));
    const plan = planRevert(ydoc, scope, changes);
    expect(plan.notReverted).toEqual([]);
    expect(applyRevert(ydoc, plan, revertOrigin('run1'))).toBe(true);
    expect(markdowns(ydoc)).toEqual(['# Title', 'Alpha beta', 'Gamma delta', 'Outside the fence']);
    expect(docParts(ydoc).content.toArray().map((block) => (block as Y.XmlElement).getAttribute('id'))).toEqual(blocks.map((block) => block.id));
    expect(origins).toEqual([revertOrigin('run1')]);
    expect((origins[0] as Origin).kind).toBe('revert');
  });

  it('[REV8] keeps what people typed after Accept, in the run’s text and elsewhere', () => {
    const { ydoc, scope, changes } = acceptedRun();
    appendToBlock(ydoc, 0, '!');
    appendToBlock(ydoc, 1, ' and more');
    applyRevert(ydoc, planRevert(ydoc, scope, changes), revertOrigin('run1'));
    expect(markdowns(ydoc)).toEqual(['# Title!', 'Alpha beta', 'Gamma delta and more', 'Outside the fence']);
  });
});

/**
 * A run that turns `Alpha beta` into a heading (a node of its own, OP7), in which a person then
 * types `Y`; a later batch of the same run replaces that heading by a paragraph (`other`) or
 * deletes it (`delete`); Accept removes it, unchanged since the run read it.
 */
function typingInABlockTheRunRemoved(second: 'other' | 'delete') {
  const { ydoc, blocks, run, origin } = setup(source);
  const manager = runUndoManager(ydoc, origin);
  const alpha = blocks[1];
  manager.stopCapturing();
  expect(applyOps(ydoc, [replaceOp(alpha, '## Alpha beta')], run, origin).ok).toBe(true);
  manager.stopCapturing();
  const person = replicaOf(ydoc, 50);
  const heading = docParts(person).content.toArray().findIndex((block) => (block as Y.XmlElement).getAttribute('id') === alpha.id);
  appendToBlock(person, heading, 'Y');
  Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(person));
  const typed = readTopBlocks(ydoc).find((block) => block.id === alpha.id)!;
  expect(typed.markdown).toBe('## Alpha betaY');
  const op = second === 'other' ? replaceOp(typed, 'Alpha betaY') : { op: 'delete_block' as const, blockId: typed.id, expectHash: typed.hash, instructionId: 'i1' };
  expect(applyOps(ydoc, [op], run, origin).ok).toBe(true);
  manager.stopCapturing();
  ydoc.gc = false;
  const { removed } = acceptRunText(ydoc, run.runId, serverOrigin);
  ydoc.gc = true;
  const scope = withDeletions(saveRunScope(manager), removed);
  manager.destroy();
  return { ydoc, blocks, scope, changes: [{ op: op.op, blockId: alpha.id, instructionId: 'i1' }] };
}

const ids = (ydoc: Y.Doc) => readTopBlocks(ydoc).map((block) => block.id);

describe('revert keeps typing inside a block the run inserted and Accept removed (REV8, REV7)', () => {
  it('[REV8] keeps a character typed in a block the run inserted, then replaced by another block type', () => {
    const { ydoc, scope, changes } = typingInABlockTheRunRemoved('other');
    expect(markdowns(ydoc)).toEqual(['# Title', 'Alpha betaY', 'Gamma delta', 'Outside the fence']);
    applyRevert(ydoc, planRevert(ydoc, scope, changes), revertOrigin('run1'));
    expect(markdowns(ydoc)).toEqual(['# Title', 'Alpha beta', '## Y', 'Gamma delta', 'Outside the fence']);
    expect(new Set(ids(ydoc)).size).toBe(5);
  });

  it('[REV8] keeps a character typed in a block the run inserted, then deleted, with a fresh id beside the block it gives back', () => {
    const { ydoc, blocks, scope, changes } = typingInABlockTheRunRemoved('delete');
    expect(markdowns(ydoc)).toEqual(['# Title', 'Gamma delta', 'Outside the fence']);
    applyRevert(ydoc, planRevert(ydoc, scope, changes), revertOrigin('run1'));
    expect(markdowns(ydoc)).toEqual(['# Title', 'Alpha beta', '## Y', 'Gamma delta', 'Outside the fence']);
    expect(ids(ydoc)[1]).toBe(blocks[1].id);
    expect(new Set(ids(ydoc)).size).toBe(5);
  });
});
