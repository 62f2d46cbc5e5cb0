import { Rejection } from '../../shared/protocol/rejection.ts';
import type * as Y from 'yjs';
import { isRecordId } from '../../shared/notes/annotations.ts';
import { setInstructionState } from '../../shared/notes/annotations-writers.ts';
import type { Claims } from '../../shared/protocol/claims.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { coversDoc, may } from '../../shared/protocol/permissions.ts';
import type { SavedRunScope } from '../../shared/applier/run-scope.ts';
import { canTake } from '../../shared/protocol/run-states.ts';
import type { StoredRun } from '../store/store.ts';
import type { RunServiceDeps } from './run-services.ts';
import { notInReview, runNotFound } from './run-error.ts';
import { keepRun, takeBack } from './run-text.ts';
import { acceptPageRun } from '../pages/page-runs.ts';

export type Decision = 'accepted' | 'discarded';

/**
 * Review (PROTOCOL.md REV1–REV7): an editor accepts a run in review (its changes stay, their
 * marks go, the blocks it deleted go unless people changed them meanwhile, which is noted on the
 * change) or discards it (every change of the run is undone and nothing else, people's typing
 * included; the annotations whose text comes back are pinned to it again). Either way the run's instructions
 * become `answered`. Both are all or nothing: the store's review → accepted|discarded step
 * comes first, and only when it wins are the documents changed. Both work after a restart
 * between the agent's write and the review, from the stored scope. A page run (PAGE8) writes
 * its candidate on Accept and has nothing to take back on Discard.
 */
export class ReviewService {
  constructor(private readonly deps: RunServiceDeps) {}

  async decide(principal: Claims, runId: string, decision: Decision): Promise<{ state: Decision }> {
    if (!may(principal.role, 'run.decide')) throw new Rejection(403, 'FORBIDDEN', 'Only editors may accept or discard a run.');
    const { store, locks } = this.deps;
    const run = isRecordId(runId) ? await store.runs.getRun(runId) : null;
    if (!run) throw runNotFound();
    if (!coversDoc(principal, run.docId)) {
      throw new Rejection(403, 'FORBIDDEN', 'This run belongs to a document your token is not for.');
    }
    await locks.run(run.id, async () => {
      const current = (await store.runs.getRun(run.id)) ?? run;
      if (!canTake(decision === 'accepted' ? 'accept' : 'discard', current.state)) throw notInReview(current.state);
      const decidedBy = { id: principal.sub, name: principal.name };
      const transition = (notes?: ReadonlyMap<number, string>) => store.runs.decideRun(run.id, decision, Date.now(), decidedBy, notes);
      const answer = answerInstructions(current);
      const keepScope = (scope: SavedRunScope) => store.runs.storeScope(run.id, scope);
      const page = (await store.getDoc(run.docId))?.kind === 'page';
      const done =
        decision === 'accepted'
          ? page
            ? await acceptPageRun(this.deps, current, transition, answer)
            : await keepRun(this.deps, current, transition, answer, keepScope)
          : await takeBack(this.deps, current, transition, answer, { redoable: !page });
      if (!done) throw notInReview((await store.runs.getRun(run.id))?.state ?? 'gone');
    });
    return { state: decision };
  }
}

/** Marks the run's instructions answered (those deleted or changed meanwhile are left alone). */
function answerInstructions(run: StoredRun): (notesYdoc: Y.Doc) => void {
  return (notes) => {
    for (const item of run.items) setInstructionState(notes, item.instructionId, 'answered', run.id, serverOrigin);
  };
}
