import { Rejection } from '../../shared/protocol/rejection.ts';
import { isRecordId } from '../../shared/notes/annotations.ts';
import { setInstructionState } from '../../shared/notes/annotations-writers.ts';
import type { Claims } from '../../shared/protocol/claims.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { coversDoc, may } from '../../shared/protocol/permissions.ts';
import { canTake } from '../../shared/protocol/run-states.ts';
import type { RunServiceDeps } from './run-services.ts';
import { runNotFound } from './run-error.ts';
import { takeBack } from './run-text.ts';

/**
 * RUN6: an editor withdraws a run no agent has finished (queued or claimed → cancelled). Like a
 * failed run, whatever a claim wrote is taken back and the run's instructions are queued again
 * (ready for the next Send); the store's step ends the lease in the same transaction, so the
 * agent that held the claim gets `409 NOT_CLAIMED` from its next request. `409 NOT_CANCELLABLE`
 * for a run in any other state.
 */
export class CancelService {
  constructor(private readonly deps: RunServiceDeps) {}

  async cancel(principal: Claims, runId: string): Promise<{ state: 'cancelled' }> {
    if (!may(principal.role, 'run.send')) throw new Rejection(403, 'FORBIDDEN', 'Only editors may cancel a run.');
    const { store, locks } = this.deps;
    const run = isRecordId(runId) ? await store.runs.getRun(runId) : null;
    if (!run) throw runNotFound();
    if (!coversDoc(principal, run.docId)) throw new Rejection(403, 'FORBIDDEN', 'This run belongs to a document your token is not for.');
    await locks.run(run.id, async () => {
      const current = (await store.runs.getRun(run.id)) ?? run;
      if (!canTake('cancel', current.state)) throw notCancellable(current.state);
      const by = { id: principal.sub, name: principal.name };
      const cancelled = await takeBack(
        this.deps,
        current,
        () => store.runs.cancelRun(run.id, this.deps.now(), by),
        (notes) => {
          for (const item of current.items) setInstructionState(notes, item.instructionId, 'queued', null, serverOrigin);
        },
      );
      if (!cancelled) throw notCancellable((await store.runs.getRun(run.id))?.state ?? 'gone');
    });
    return { state: 'cancelled' };
  }
}

function notCancellable(state: string): Rejection {
  return new Rejection(409, 'NOT_CANCELLABLE', `This run is ${state}: only a queued run or one an agent is working on can be cancelled.`);
}
