import * as Y from 'yjs';
import { docName } from '../../shared/model/doc-layout.ts';
import { revertOrigin, serverOrigin } from '../../shared/model/origins.ts';
import { applyPageOps, candidateOf, pageChangesOf, revertPageChanges, type PageApplyResult } from '../../shared/page/page-applier.ts';
import { newElementId, pageSource, writePageSource } from '../../shared/page/page-source.ts';
import { runUndoManager, saveRunScope, type SavedRunScope } from '../../shared/applier/run-scope.ts';
import { pageItemChanges, pageNotApplied, stagedPageChanges } from '../../shared/page/page-items.ts';
import type { ItemDecision, NotReverted, RunChange } from '../../shared/protocol/run-record.ts';
import { readDocState } from '../docs/read-doc.ts';
import { withDocument } from '../docs/with-document.ts';
import type { StoredRun } from '../store/run-store.ts';
import type { RunTextDeps } from '../runs/run-text.ts';
import { serverPageTools } from './page-tools.ts';
import { answeredInstructions } from '../runs/answered.ts';
import { applyPageOpsOff, pageCandidateOf, pageViewOf, refuseShape, revertedPage } from './page-work.ts';

/**
 * What a run does to a page (PAGE5–PAGE8). A page run never writes the source before Accept:
 * a batch becomes more of the run's changes (the staged candidate), Accept (of the run, or of
 * one item, REV12) writes the candidate of the items it accepts into the `html` Y.Text in one
 * transaction with the run's origin, and Discard, a failed run or
 * a lease that runs out have nothing to take back in the page (the run store forgets the
 * changes with the run's state, as for text; run-text.ts's takeBack finds an empty scope).
 */

/** The scope a page run records with each batch (and choice, VAR2): it never writes the page before Accept. */
export function emptyScope(): SavedRunScope {
  const ydoc = new Y.Doc();
  try {
    return saveRunScope(runUndoManager(ydoc, serverOrigin));
  } finally {
    ydoc.destroy();
  }
}

/** PAGE7: the candidate of a page run over the page's current source (the changes it still stages). */
export async function readCandidate(deps: Pick<RunTextDeps, 'hocuspocus'> & { store: Parameters<typeof readDocState>[1] }, run: StoredRun): Promise<string> {
  return pageCandidateOf(await readDocState(deps.hocuspocus, deps.store, docName(run.docId), pageSource), stagedPageChanges(run, pageChangesOf(run)));
}

/**
 * `derive(source)` for the page's source as it is when the answer comes: derived in the work
 * pool while people may type, it is derived again if the source changed meanwhile (a few
 * times, then on the event loop, within the limits the source was read under).
 */
async function overCurrentSource<T>(ydoc: Y.Doc, derive: (source: string) => Promise<T>, fallback: (source: string) => T): Promise<{ source: string; value: T }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const source = pageSource(ydoc);
    const value = await derive(source);
    if (pageSource(ydoc) === source) return { source, value };
  }
  const source = pageSource(ydoc);
  return { source, value: fallback(source) };
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
  const applier = {
    fence: new Set(run.items.map((item) => item.blockId)),
    instructions: new Set(run.items.map((item) => item.instructionId)),
    allowedOps,
    answered: answeredInstructions(run),
  };
  refuseOpsShape(ops);
  return withDocument(deps.hocuspocus, docName(run.docId), async (ydoc) => {
    const { value: result } = await overCurrentSource(
      ydoc,
      (source) => applyPageOpsOff(source, pageChangesOf(run), ops, applier),
      (source) => applyPageOps(serverPageTools(), source, pageChangesOf(run), ops, { ...applier, makeId: newElementId }),
    );
    if (!result.ok) return result;
    const changes = result.changes.map(({ op, elementId, instructionId, before, after, candidates }): RunChange => ({
      op,
      blockId: elementId,
      instructionId,
      before,
      after,
      ...(candidates ? { variants: { candidates, chosen: 0, blockIds: [] } } : {}),
    }));
    return (await record(changes, result.applied, emptyScope())) ? result : { ok: 'unrecorded' };
  });
}

/** The run's state after the store's step for some of its items, or false when the step lost. */
export type PageItemsTransition = (notes: ReadonlyMap<number, string>) => Promise<'review' | 'accepted' | 'discarded' | false>;

/**
 * PAGE8 with REV12: deciding the items `ids` of a page run in review (all its undecided items
 * for Accept run / Discard run). If `transition` wins, an accept writes those items' staged
 * changes over the source as it is then, as one transaction with the run's origin (an edit
 * people made elsewhere in the source meanwhile stays; a change whose element people removed
 * is noted on it, pageNotApplied, and skipped); a discard writes nothing (the changes
 * are no longer staged, stagedPageChanges). `inNotes` runs in one notes transaction. Resolves
 * the run's state after the step, or false, changing nothing, when `transition` does.
 */
export async function decidePageItems(
  deps: RunTextDeps,
  run: StoredRun,
  ids: ReadonlySet<string>,
  decision: ItemDecision,
  transition: PageItemsTransition,
  inNotes: (notesYdoc: Y.Doc) => void,
): Promise<'review' | 'accepted' | 'discarded' | false> {
  const { hocuspocus, scopes } = deps;
  return withDocument(hocuspocus, docName(run.docId), (page) =>
    withDocument(hocuspocus, docName(run.docId, 'notes'), async (notes) => {
      const changes = decision === 'accepted' ? pageItemChanges(stagedPageChanges(run, pageChangesOf(run)), ids) : [];
      // The limits of the candidate are checked before the store decides (LIMIT8–LIMIT10).
      if (changes.length > 0) await pageCandidateOf(pageSource(page), changes);
      const present = changes.length > 0 ? new Set((await pageViewOf(pageSource(page))).elements.map((element) => element.id)) : new Set<string>();
      const state = await transition(pageNotApplied(run.changes, changes, present));
      if (state === false) return false;
      if (changes.length > 0) {
        const { value: candidate } = await overCurrentSource(
          page,
          (source) => pageCandidateOf(source, changes),
          (source) => candidateOf(serverPageTools(), source, changes),
        );
        writePageSource(page, candidate, scopes.origin(run.id));
      }
      notes.transact(() => inNotes(notes), serverOrigin);
      if (state !== 'review') scopes.forget(run.docId, run.id, page);
      return state;
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
    const changes = stagedPageChanges(run, pageChangesOf(run));
    const plan = await revertedPage(pageSource(page), changes);
    if (!(await transition(plan.notReverted))) throw refused();
    // Again over the source as it is now: people may have typed while the store decided.
    const { value: reverted } = await overCurrentSource(
      page,
      (source) => revertedPage(source, changes),
      (source) => revertPageChanges(serverPageTools(), source, changes),
    );
    writePageSource(page, reverted.html, revertOrigin(run.id));
    return plan.notReverted;
  });
}

/** LIMIT8, LIMIT9 for the HTML of each `replace_element` op, before the batch goes to the pool. */
function refuseOpsShape(ops: unknown): void {
  if (!Array.isArray(ops)) return;
  for (const op of ops as unknown[]) {
    const html = typeof op === 'object' && op !== null ? (op as { html?: unknown }).html : undefined;
    if (typeof html === 'string') refuseShape(html);
  }
}
