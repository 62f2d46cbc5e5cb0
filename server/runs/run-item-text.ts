import type * as Y from 'yjs';
import { docName } from '../../shared/model/doc-layout.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { acceptRunText, notAppliedNote, pendingDeletes } from '../../shared/applier/pending-delete.ts';
import { itemsOfRun, keepInScope, undoRunItems } from '../../shared/applier/run-items.ts';
import { saveRunScope } from '../../shared/applier/run-scope.ts';
import type { ItemDecision } from '../../shared/protocol/run-record.ts';
import { withDocument } from '../docs/with-document.ts';
import type { StoredRun } from '../store/run-store.ts';
import type { RunStore } from '../store/run-store.ts';
import { repinRestored, type RunTextDeps } from './run-text.ts';
import { writeRestoring } from '../authorship/restored-text.ts';

/** The store's step for the items (REV12): the run's state after it, or false when it lost. */
export type ItemsTransition = (notes: ReadonlyMap<number, string>) => Promise<'review' | 'accepted' | 'discarded' | false>;

/**
 * What deciding some items of a run in review does to the live documents (REV12), once
 * `transition` wins: Accept carries out those items' pending deletes (but those of blocks
 * people changed meanwhile, noted as for Accept run, REV6) and removes their change marks;
 * Discard takes back exactly their part of the run's scope (undo-keeps-typing.ts spares
 * people's typing) and re-pins the annotations whose text comes back. `inNotes` runs in the same
 * notes transaction. The run's manager keeps the scope of the other items; it is stored while
 * the run stays in review, kept for Revert when the run ends accepted (REV8), and held for Undo
 * discard when it ends discarded (REV9). Resolves the run's state after, or false, changing
 * nothing, when `transition` does.
 */
export async function decideItemsText(
  deps: RunTextDeps & { runs: RunStore },
  run: StoredRun,
  instructionIds: ReadonlySet<string>,
  decision: ItemDecision,
  transition: ItemsTransition,
  inNotes: (notesYdoc: Y.Doc) => void,
): Promise<'review' | 'accepted' | 'discarded' | false> {
  const { hocuspocus, scopes, writers, runs, owners } = deps;
  return withDocument(hocuspocus, docName(run.docId), (text) =>
    withDocument(hocuspocus, docName(run.docId, 'notes'), async (notes) => {
      const manager = await scopes.manager(text, run.id);
      const items = itemsOfRun(manager, run.changes, instructionIds);
      const state = await transition(decision === 'accepted' ? notAppliedNotes(text, run, items.owns, writers.names.bind(writers)) : new Map());
      if (state === false) return false;
      if (decision === 'accepted') {
        const { removed } = scopes.whileApplying(run.docId, () => acceptRunText(text, run.id, serverOrigin, items));
        keepInScope(manager, removed, instructionIds);
      } else {
        await writeRestoring(owners, text, run.docId, () => undoRunItems(manager, run.changes, instructionIds, { runId: run.id, instructionIds: acceptedItems(run) }));
        scopes.discardedItems(manager, instructionIds);
      }
      notes.transact(() => {
        if (decision === 'discarded') repinRestored(text, notes);
        inNotes(notes);
      }, serverOrigin);
      const scope = saveRunScope(manager);
      // Undo discard redoes with this manager: only when it discarded every item (not when some
      // were discarded before a restart or an unload, with a manager gone since).
      const discarded = run.items.filter((item) => item.decision === 'discarded' || instructionIds.has(item.instructionId)).map((item) => item.instructionId);
      if (state === 'discarded' && scopes.redoesAll(manager, discarded)) scopes.holdForRedo(run.docId, run.id, text);
      else if (state === 'discarded') scopes.forget(run.docId, run.id, text);
      else if (state === 'accepted') scopes.retain(run.docId, run.id, text, scope);
      else scopes.saved(run.docId, run.id, scope);
      if (state !== 'discarded') await runs.storeScope(run.id, scope);
      return state;
    }),
  );
}

/** As notAppliedNotes of run-text.ts, for the pending deletes of the blocks `owns` says are the items'. */
function notAppliedNotes(
  text: Y.Doc,
  run: StoredRun,
  owns: (top: Y.Item) => boolean,
  names: (docId: string, clients: readonly number[]) => string[],
): Map<number, string> {
  const notes = new Map<number, string>();
  for (const { yblock, pending, changed, clients } of pendingDeletes(text, run.id)) {
    if (!changed || yblock._item === null || !owns(yblock._item)) continue;
    const position = run.changes.findIndex((change) => change.op !== 'insert_after' && change.blockId === pending.blockId);
    const change = run.changes[position];
    if (change && (change.op === 'replace_block' || change.op === 'delete_block')) notes.set(position, notAppliedNote(names(run.docId, clients), change.op));
  }
  return notes;
}

/** The items of `run` accepted already. */
function acceptedItems(run: StoredRun): Set<string> {
  return new Set(run.items.filter((item) => item.decision === 'accepted').map((item) => item.instructionId));
}
