import * as Y from 'yjs';
import { chooseVariant } from '../../shared/applier/choose-variant.ts';
import { managerScope } from '../../shared/applier/run-items.ts';
import { saveRunScope } from '../../shared/applier/run-scope.ts';
import { mergeItems, tagBatch, undoFrom } from '../../shared/applier/item-parts.ts';
import { newBlockId } from '../../shared/model/block-ids.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import type { ChangeVariants, RunChange } from '../../shared/protocol/run-record.ts';
import type { SavedRunScope } from '../../shared/applier/run-scope.ts';
import { withDocument } from '../docs/with-document.ts';
import type { StoredRun } from '../store/run-store.ts';
import { agentWriters } from '../authorship/agent-writers.ts';
import { writeRestoring } from '../authorship/restored-text.ts';
import type { RunTextDeps } from './run-text.ts';

/** The store's step for a choice (VAR2): false when it lost, and the text is taken back. */
export type ChoiceRecord = (choice: { after: string; variants: ChangeVariants; scope: SavedRunScope }) => Promise<boolean>;

/**
 * VAR2 on the live text: shows candidate `chosen` of `change` (a change with variants of `run`,
 * in review) as one transaction with the run's origin (shared/applier/choose-variant.ts), then
 * lets the store record it with the run's scope after it; when `record` resolves false or
 * throws, the choice is undone again. Resolves whether it was recorded; a block gone since is
 * the applier's STALE_BLOCK.
 */
export async function chooseVariantText(
  deps: RunTextDeps,
  run: StoredRun,
  change: RunChange & { variants: ChangeVariants },
  chosen: number,
  assets: ReadonlySet<string>,
  record: ChoiceRecord,
) {
  const { hocuspocus, scopes, owners } = deps;
  return withDocument(hocuspocus, docName(run.docId), async (ydoc) => {
    const manager = await scopes.manager(ydoc, run.id);
    const writerFor = await agentWriters(owners, ydoc, run);
    manager.stopCapturing();
    const stackSize = manager.undoStack.length;
    const { insertions } = managerScope(manager);
    const result = scopes.whileApplying(run.docId, () =>
      chooseVariant(
        ydoc,
        {
          runId: run.id,
          instructionId: change.instructionId,
          blockId: change.blockId,
          variants: change.variants,
          chosen,
          writtenByRun: (item) => Y.isDeleted(insertions, item.id),
          makeId: newBlockId,
          assets,
          writerFor,
        },
        scopes.origin(run.id),
      ),
    );
    if (!result.ok) return result;
    manager.stopCapturing();
    // REV12: the choice is the item's own part of the run's scope.
    tagBatch(manager, stackSize, new Map([[change.instructionId, mergeItems(manager.undoStack.slice(stackSize))]]));
    const scope = saveRunScope(manager);
    let recorded = false;
    try {
      recorded = await record({ after: result.after, variants: result.variants, scope });
    } finally {
      if (!recorded && manager.undoStack.length > stackSize) await writeRestoring(owners, ydoc, run.docId, () => undoFrom(manager, stackSize));
    }
    if (recorded) scopes.saved(run.docId, run.id, scope);
    return { ok: recorded } as const;
  });
}
