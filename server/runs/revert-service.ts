import { isRecordId } from '../../shared/notes/annotations.ts';
import type { Claims } from '../../shared/protocol/claims.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { revertOrigin, serverOrigin } from '../../shared/model/origins.ts';
import type { NotReverted } from '../../shared/protocol/run-record.ts';
import { applyRevert, planRevert, redoIsClean } from '../../shared/applier/run-revert.ts';
import { revertUndoIsClean, trackRevert, undoRevert } from '../../shared/applier/revert-undo.ts';
import { coversDoc, may } from '../../shared/protocol/permissions.ts';
import { saveRunScope } from '../../shared/applier/run-scope.ts';
import { redoKeepingParts } from '../../shared/applier/discard-parts.ts';
import { canTake } from '../../shared/protocol/run-states.ts';
import { withDocument } from '../docs/with-document.ts';
import { Rejection } from '../../shared/protocol/rejection.ts';
import type { StoredRun } from '../store/store.ts';
import type { RevertUndone } from '../../shared/wire/runs.ts';
import { runNotFound } from './run-error.ts';
import type { RunServiceDeps } from './run-services.ts';
import { repinRestored } from './run-text.ts';
import { revertPageRun } from '../pages/page-runs.ts';
import { writeRestoring } from '../authorship/restored-text.ts';

/**
 * Taking a decision back (PROTOCOL.md REV8, REV9), for editors:
 * - revert: an accepted run's changes are taken back, as one transaction with the revert
 *   origin, keeping everything written since; the run stays `accepted` with `reverted` set;
 * - undo revert: a reverted run's changes come back (REV14), the revert's own manager undoing it;
 * - undo discard: a run discarded while its document stayed loaded goes back to `review` with
 *   its changes redone (its undo manager's redo), keeping edits made meanwhile; its
 *   instructions stay `answered` (an instruction's state only moves forward).
 * Like Accept and Discard, the store's step comes first and only when it wins is the text changed.
 */
export class RevertService {
  constructor(private readonly deps: RunServiceDeps) {}

  async revert(principal: Claims, runId: string): Promise<{ state: 'accepted'; notReverted: NotReverted[] }> {
    const run = await this.reviewable(principal, runId, 'Only editors may revert a run.');
    const { store, locks, hocuspocus, scopes } = this.deps;
    const notReverted = await locks.run(run.id, async () => {
      const current = (await store.runs.getRun(run.id)) ?? run;
      if (!canTake('revert', current.state)) throw notAccepted(current.state);
      if (current.reverted) throw alreadyReverted();
      const by = { id: principal.sub, name: principal.name };
      if ((await store.getDoc(run.docId))?.kind === 'page') {
        return revertPageRun(this.deps, current, (notReverted) => store.runs.revertRun(run.id, Date.now(), by, notReverted), () => alreadyReverted());
      }
      const saved = await store.runs.loadScope(run.id);
      if (!saved) throw notRevertible();
      return withDocument(hocuspocus, docName(run.docId), (text) =>
        withDocument(hocuspocus, docName(run.docId, 'notes'), async (notes) => {
          const plan = planRevert(text, saved, current.changes);
          if (!(await store.runs.revertRun(run.id, Date.now(), by, plan.notReverted))) throw alreadyReverted();
          const origin = revertOrigin(run.id);
          const tracker = trackRevert(text, origin);
          await writeRestoring(this.deps.owners, text, run.docId, () => applyRevert(text, plan, origin));
          notes.transact(() => repinRestored(text, notes), serverOrigin);
          scopes.forget(run.docId, run.id, text);
          scopes.holdRevert(run.docId, run.id, text, tracker);
          return plan.notReverted;
        }),
      );
    });
    return { state: 'accepted', notReverted };
  }

  /**
   * REV14: takes a revert back while its window is open (the document stayed loaded on this
   * server since, and none of the text the revert brought back was changed since): the run's
   * changes come back exactly, what people wrote since stays, and the run is revertible again.
   */
  async undoRevert(principal: Claims, runId: string): Promise<RevertUndone> {
    const run = await this.reviewable(principal, runId, 'Only editors may undo a revert.');
    const { store, locks, hocuspocus, scopes } = this.deps;
    await locks.run(run.id, async () => {
      const current = (await store.runs.getRun(run.id)) ?? run;
      if (!canTake('undoRevert', current.state) || !current.reverted) throw notReverted(current.state);
      if ((await store.getDoc(run.docId))?.kind === 'page') throw revertWindowClosed('a page run’s revert is not kept for undoing');
      await withDocument(hocuspocus, docName(run.docId), (text) =>
        withDocument(hocuspocus, docName(run.docId, 'notes'), async (notes) => {
          const tracker = scopes.heldRevert(run.id, text);
          if (!tracker) throw revertWindowClosed('the document was closed since');
          if (!revertUndoIsClean(text, tracker)) throw revertWindowClosed('text the revert brought back was changed since');
          if (!(await store.runs.unrevertRun(run.id, Date.now()))) throw revertWindowClosed('the run is no longer reverted');
          const scope = await writeRestoring(this.deps.owners, text, run.docId, () => undoRevert(tracker));
          notes.transact(() => repinRestored(text, notes), serverOrigin);
          scopes.dropRevert(run.id);
          scopes.saved(run.docId, run.id, scope);
          await store.runs.storeScope(run.id, scope);
        }),
      );
    });
    return { state: 'accepted' };
  }

  async undoDiscard(principal: Claims, runId: string): Promise<{ state: 'review' }> {
    const run = await this.reviewable(principal, runId, 'Only editors may undo a discard.');
    const { store, locks, hocuspocus, scopes } = this.deps;
    await locks.run(run.id, async () => {
      const current = (await store.runs.getRun(run.id)) ?? run;
      if (!canTake('undoDiscard', current.state)) throw notDiscarded(current.state);
      // The outstanding run and the newest finished one, newest first: the document's newest run leads.
      const [newest] = await store.runs.mirroredRuns(run.docId, { finished: 1, decided: 0 });
      if (newest?.id !== run.id) throw windowClosed('another run was sent for this document since');
      // A page run's changes are staged in the store, not written: reopening brings them back (PAGE13).
      if ((await store.getDoc(run.docId))?.kind === 'page') {
        if (!(await store.runs.reopenRun(run.id, Date.now()))) throw windowClosed('the document has another run outstanding');
        return;
      }
      await withDocument(hocuspocus, docName(run.docId), async (text) => {
        const held = scopes.redo(run.id, text);
        if (!held) throw windowClosed('the document was closed since');
        if (!redoIsClean(text, held.manager)) throw windowClosed('text the run wrote in was deleted since');
        if (!(await store.runs.reopenRun(run.id, Date.now()))) throw windowClosed('the document has another run outstanding');
        // One redo item per discard step: a run discarded item by item comes back whole (REV12).
        await writeRestoring(this.deps.owners, text, run.docId, () => redoKeepingParts(held.manager));
        const scope = saveRunScope(held.manager);
        held.reopened(scope);
        await store.runs.storeScope(run.id, scope);
      });
    });
    return { state: 'review' };
  }

  private async reviewable(principal: Claims, runId: string, refusal: string): Promise<StoredRun> {
    if (!may(principal.role, 'run.decide')) throw new Rejection(403, 'FORBIDDEN', refusal);
    const run = isRecordId(runId) ? await this.deps.store.runs.getRun(runId) : null;
    if (!run) throw runNotFound();
    if (!coversDoc(principal, run.docId)) {
      throw new Rejection(403, 'FORBIDDEN', 'This run belongs to a document your token is not for.');
    }
    return run;
  }
}

const notAccepted = (state: string) =>
  new Rejection(409, 'NOT_ACCEPTED', `This run is ${state}, not accepted: only an accepted run can be reverted.`);
const alreadyReverted = () => new Rejection(409, 'ALREADY_REVERTED', 'This run was already reverted.');
const notRevertible = () =>
  new Rejection(409, 'NOT_REVERTIBLE', 'This run is no longer revertible: only the last accepted runs of a document can be reverted.');
const notDiscarded = (state: string) =>
  new Rejection(409, 'NOT_DISCARDED', `This run is ${state}, not discarded: only a discarded run's discard can be undone.`);
const notReverted = (state: string) =>
  new Rejection(409, 'NOT_REVERTED', `This run is ${state} and not reverted: only a reverted run's revert can be undone.`);
const revertWindowClosed = (why: string) =>
  new Rejection(409, 'UNDO_WINDOW_CLOSED', `This revert can no longer be undone: ${why}.`);
const windowClosed = (why: string) =>
  new Rejection(409, 'UNDO_WINDOW_CLOSED', `This discard can no longer be undone: ${why}.`);
