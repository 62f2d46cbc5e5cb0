import * as Y from 'yjs';
import type { Origin } from '../model/origins.ts';
import type { ChangeVariants } from '../protocol/run-record.ts';
import { applyOps, type ApplyError } from './applier.ts';
import { liveBlock } from './live-blocks.ts';
import { pendingDeleteOf } from './pending-delete-attr.ts';

/**
 * VAR2: shows another candidate of an item with variants, as one transaction with the run's
 * origin (so the run's undo scope holds it, and Discard, Accept and Revert act on whichever
 * candidate is shown, VAR3). The block the change names takes the chosen candidate exactly as a
 * `replace_block` of the run would write it (applier.ts: in place when its type is kept, the
 * first block keeping the id); the further blocks of the candidate shown before, which the run
 * itself wrote, are removed, as is the block the run wrote for it when the chosen candidate
 * is of another type. Blocks no candidate covers, and everything people typed in them, are
 * untouched; typing inside the blocks of the candidate shown goes with it.
 */

export interface VariantChoice {
  runId: string;
  instructionId: string;
  /** The block the change names: the first block of the candidate shown. */
  blockId: string;
  variants: ChangeVariants;
  /** The index of the candidate to show. */
  chosen: number;
  /** Whether the run wrote `item` (it is among the insertions of the run's undo scope). */
  writtenByRun: (item: Y.Item) => boolean;
  makeId: () => string;
  assets?: ReadonlySet<string>;
  writerFor?: (instructionId: string) => number;
}

export type ChooseResult = { ok: true; variants: ChangeVariants; after: string } | { ok: false; error: ApplyError };

export function chooseVariant(ydoc: Y.Doc, choice: VariantChoice, origin: Origin): ChooseResult {
  const { runId, instructionId, blockId, variants } = choice;
  const markdown = variants.candidates[choice.chosen];
  if (markdown === undefined) throw new RangeError(`No candidate ${choice.chosen} among ${variants.candidates.length}`);
  const shown = liveBlock(ydoc, blockId);
  if (shown === undefined || shown.hash === null) {
    return { ok: false, error: { code: 'STALE_BLOCK', index: 0, blockId, message: `The block showing this item's candidate ("${blockId}") is no longer in the document.` } };
  }
  let answer: ChooseResult | undefined;
  ydoc.transact(() => {
    const applied = applyOps(
      ydoc,
      [{ op: 'replace_block', blockId, markdown, expectHash: shown.hash as string, instructionId }],
      {
        runId,
        fence: new Set([blockId]),
        instructions: new Set([instructionId]),
        allowedOps: new Set(['replace_block']),
        makeId: choice.makeId,
        assets: choice.assets,
        writerFor: choice.writerFor,
      },
      origin,
    );
    if (!applied.ok) {
      answer = applied;
      return;
    }
    for (const id of variants.blockIds.slice(1)) {
      const block = liveBlock(ydoc, id);
      if (block !== undefined && block.yblock._item !== null && choice.writtenByRun(block.yblock._item)) removeBlock(block.yblock);
    }
    // A candidate of another type took the id to a new block, marking the one shown for deletion (OP7).
    const retired = shown.yblock;
    if (liveBlock(ydoc, blockId)?.yblock !== retired && pendingDeleteOf(retired)?.runId === runId && retired._item !== null && choice.writtenByRun(retired._item)) {
      removeBlock(retired);
    }
    const change = applied.changes[0];
    answer = { ok: true, after: change.after ?? '', variants: { candidates: [...variants.candidates], chosen: choice.chosen, blockIds: change.blockIds } };
  }, origin);
  if (answer === undefined) throw new Error('The choice of a variant wrote nothing');
  return answer;
}

function removeBlock(yblock: Y.XmlElement): void {
  const parent = yblock.parent;
  if (!(parent instanceof Y.XmlFragment)) return;
  const index = parent.toArray().indexOf(yblock);
  if (index >= 0) parent.delete(index, 1);
}
