import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { applyOps } from '../../shared/applier/applier.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { revertOrigin, serverOrigin, type Origin } from '../../shared/model/origins.ts';
import { acceptRunText } from '../../shared/applier/pending-delete.ts';
import { applyRevert, planRevert } from '../../shared/applier/run-revert.ts';
import { runUndoManager, saveRunScope, withDeletions } from '../../shared/applier/run-scope.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { markdowns, replaceOp, setup } from '../helpers/applier-fixture.ts';

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
