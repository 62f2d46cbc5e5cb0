/**
 * The applier under benchmark (bench/applier.ts): Tandem's `applyOps` (shared/applier/applier.ts) in a
 * run scope (shared/applier/run-scope.ts), as the server applies an agent's batch and discards a run.
 * Delete this file and the applier benchmark is skipped again.
 */
import type * as Y from 'yjs';
import { applyOps, type ApplierRun } from '../shared/applier/applier.ts';
import { readBlocks } from '../shared/model/doc-content.ts';
import { opKinds } from '../shared/applier/op-kinds.ts';
import type { Op } from '../shared/applier/ops.ts';
import { runOrigin, type Origin } from '../shared/model/origins.ts';
import { runUndoManager, undoRun } from '../shared/applier/run-scope.ts';
import { blockIndexOf } from '../shared/applier/block-index.ts';
import type { ApplierSubject } from './applier.ts';

interface Batch {
  ops: Op[];
  run: ApplierRun;
  origin: Origin;
  undoManager: Y.UndoManager;
}

const instructionId = 'bench-instruction';

export const subject: ApplierSubject = {
  /** One `replace_block` per block: its Markdown as the agent read it, plus `suffix`. The run's scope opens here. */
  makeOps(ydoc, blockIds, suffix): Batch {
    const wanted = new Set(blockIds);
    const ops: Op[] = readBlocks(ydoc)
      .filter((block) => wanted.has(block.id))
      .map((block) => ({ op: 'replace_block', blockId: block.id, markdown: block.markdown + suffix, expectHash: block.hash, instructionId }));
    let ids = 0;
    const run: ApplierRun = {
      runId: 'bench-run',
      fence: wanted,
      instructions: new Set([instructionId]),
      allowedOps: new Set(opKinds),
      makeId: () => `bench-new-${++ids}`,
    };
    const origin = runOrigin(run.runId);
    const undoManager = runUndoManager(ydoc, origin);
    undoManager.stopCapturing();
    // The server holds the document loaded: its block index is built by the first batch after
    // the load and kept up to date from then on (block-index.ts). Untimed here, as the
    // editor-bound path's projection of the document is; bench/applier.ts times the build apart.
    blockIndexOf(ydoc);
    return { ops, run, origin, undoManager };
  },
  apply(ydoc, batch) {
    const { ops, run, origin } = batch as Batch;
    const result = applyOps(ydoc, ops, run, origin);
    if (!result.ok) throw new Error(`the applier refused the batch: ${result.error.code} ${result.error.message}`);
    return batch;
  },
  discard(_ydoc, applied) {
    const { undoManager } = applied as Batch;
    if (!undoRun(undoManager)) throw new Error('discard took nothing back');
    undoManager.destroy();
  },
};
