import * as Y from 'yjs';
import type { ApplierRun } from '../../shared/applier/applier.ts';
import { readBlocks } from '../../shared/model/doc-content.ts';
import { opKinds } from '../../shared/applier/op-kinds.ts';
import type { ReplaceBlockOp } from '../../shared/applier/ops.ts';
import { runOrigin } from '../../shared/model/origins.ts';
import { makeYDoc } from './doc-builder.ts';

/** Five blocks; a run's fence is every block but the last (`Outside the fence`). */
export const markdown = ['# Title', 'Alpha beta gamma delta', 'Second paragraph here', '- one\n- two', 'Outside the fence'].join('\n\n');

/**
 * A document from `source` and a run over it answering instructions `i1` and `i2`, allowed
 * every op kind, whose new block ids are `new1`, `new2`… (listed in `made`).
 */
export function setup(source = markdown, runId = 'run1') {
  const ydoc = makeYDoc(source);
  const blocks = readTopBlocks(ydoc);
  let count = 0;
  const made: string[] = [];
  const run: ApplierRun = {
    runId,
    fence: new Set(blocks.slice(0, -1).map((block) => block.id)),
    instructions: new Set(['i1', 'i2']),
    allowedOps: new Set(opKinds),
    makeId: () => {
      const id = `new${++count}`;
      made.push(id);
      return id;
    },
  };
  return { ydoc, blocks, run, origin: runOrigin(runId), made };
}

/** A replace of `block` as the agent read it. */
export function replaceOp(block: { id: string; hash: string }, text: string, instructionId = 'i1'): ReplaceBlockOp {
  return { op: 'replace_block', blockId: block.id, markdown: text, expectHash: block.hash, instructionId };
}

/** The state of `ydoc` in bytes, to prove it unchanged. */
export function bytes(ydoc: Y.Doc) {
  return { update: Y.encodeStateAsUpdate(ydoc), vector: Y.encodeStateVector(ydoc) };
}

export function markdowns(ydoc: Y.Doc): string[] {
  return readTopBlocks(ydoc).map((block) => block.markdown);
}

/** The top-level blocks of `ydoc` as the API lists them (without the nested ones, OP12). */
export function readTopBlocks(ydoc: Y.Doc) {
  return readBlocks(ydoc).filter((block) => block.parentId === null);
}

