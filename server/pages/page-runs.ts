import * as Y from 'yjs';
import { docName } from '../../shared/model/doc-layout.ts';
import { revertOrigin, serverOrigin } from '../../shared/model/origins.ts';
import { applyPageOps, candidateOf, pageChangesOf, revertPageChanges, type PageApplyResult } from '../../shared/page/page-applier.ts';
import { newElementId, pageSource, writePageSource } from '../../shared/page/page-source.ts';
import { runUndoManager, saveRunScope, type SavedRunScope } from '../../shared/applier/run-scope.ts';
import type { NotReverted, RunChange } from '../../shared/protocol/run-record.ts';
import { readDocState } from '../docs/read-doc.ts';
import { withDocument } from '../docs/with-document.ts';
import type { StoredRun } from '../store/run-store.ts';
import type { RunTextDeps } from '../runs/run-text.ts';
import { serverPageTools } from './page-tools.ts';

/**
 * What a run does to a page (PAGE5–PAGE8). A page run never writes the source before Accept:
 * a batch becomes more of the run's changes (the staged candidate), Accept writes the candidate
 * into the `html` Y.Text in one transaction with the run's origin, and Discard, a failed run or
 * a lease that runs out have nothing to take back in the page (the run store forgets the
 * changes with the run's state, as for text; run-text.ts's takeBack finds an empty scope).
 */

/** The scope a page run records with each batch: it never writes the page before Accept. */
function emptyScope(): SavedRunScope {
  const ydoc = new Y.Doc();
  try {
    return saveRunScope(runUndoManager(ydoc, serverOrigin));
  } finally {
    ydoc.destroy();
  }
}

/** PAGE7: the candidate of a page run over the page's current source. */
export function readCandidate(deps: Pick<RunTextDeps, 'hocuspocus'> & { store: Parameters<typeof readDocState>[1] }, run: StoredRun): Promise<string> {
  return readDocState(deps.hocuspocus, deps.store, docName(run.docId), (ydoc) => candidateOf(serverPageTools(), pageSource(ydoc), pageChangesOf(run)));
}

/**
 * Validates a batch of page ops against the page and the run's earlier changes, and on success
 * hands its changes to `record` (the store, with the run's unchanged, empty scope). Nothing is
 * written to the page.
 */
export async function applyPageBatch(
  deps: RunTextDeps,
  run: StoredRun,
  ops: unknown,
  allowedOps: ReadonlySet<string>,
  record: (changes: RunChange[], applied: number, scope: SavedRunScope) => Promise<boolean>,
): Promise<PageApplyResult | { ok: 'unrecorded' }> {
  return withDocument(deps.hocuspocus, docName(run.docId), async (ydoc) => {
    const result = applyPageOps(serverPageTools(), pageSource(ydoc), pageChangesOf(run), ops, {
      fence: new Set(run.items.map((item) => item.blockId)),
      instructions: new Set(run.items.map((item) => item.instructionId)),
      allowedOps,
      makeId: newElementId,
    });
    if (!result.ok) return result;
    const changes = result.changes.map(({ op, elementId, instructionId, before, after }) => ({ op, blockId: elementId, instructionId, before, after }));
    return (await record(changes, result.applied, emptyScope())) ? result : { ok: 'unrecorded' };
  });
}

/**
 * PAGE8 Accept: if `transition` (the store's review → accepted) succeeds, writes the candidate
 * over the source as it is then, with the run's origin, and calls `inNotes` in one notes
 * transaction. Resolves false, changing nothing, when `transition` does.
 */
export async function acceptPageRun(
  deps: RunTextDeps,
  run: StoredRun,
  transition: () => Promise<boolean>,
  inNotes: (notesYdoc: Y.Doc) => void,
): Promise<boolean> {
  const { hocuspocus, scopes } = deps;
  return withDocument(hocuspocus, docName(run.docId), (page) =>
    withDocument(hocuspocus, docName(run.docId, 'notes'), async (notes) => {
      if (!(await transition())) return false;
      writePageSource(page, candidateOf(serverPageTools(), pageSource(page), pageChangesOf(run)), scopes.origin(run.id));
      notes.transact(() => inNotes(notes), serverOrigin);
      scopes.forget(run.docId, run.id, page);
      return true;
    }),
  );
}

/**
 * PAGE13 Revert of an accepted page run: if `transition` (the store's revert, given what will not
 * be reverted) succeeds, writes the source with the run's changes taken back as one transaction
 * with the revert origin; else throws `refused()`.
 */
export async function revertPageRun(
  deps: RunTextDeps,
  run: StoredRun,
  transition: (notReverted: NotReverted[]) => Promise<boolean>,
  refused: () => Error,
): Promise<NotReverted[]> {
  return withDocument(deps.hocuspocus, docName(run.docId), async (page) => {
    const changes = pageChangesOf(run);
    const plan = revertPageChanges(serverPageTools(), pageSource(page), changes);
    if (!(await transition(plan.notReverted))) throw refused();
    // Again over the source as it is now: people may have typed while the store decided.
    writePageSource(page, revertPageChanges(serverPageTools(), pageSource(page), changes).html, revertOrigin(run.id));
    return plan.notReverted;
  });
}
