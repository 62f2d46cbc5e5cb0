import { canTake } from '../../shared/protocol/run-states.ts';
import type { RunServiceDeps } from './run-services.ts';
import { takeBack } from './run-text.ts';
import { recordAuditAs } from '../audit/record-audit.ts';

/**
 * CLAIM3: gives back the claims whose lease ran out (claimed → queued): a timer looks for them every
 * `periodMs`; each is taken back under its run's lock (its changes undone, so that the next
 * agent starts from the text the run was sent with, people's edits aside), requeued by the
 * store's conditional step (a heartbeat that came first wins; the store's change event mirrors
 * it and wakes waiting long polls). Its instructions stay `sent`: the run is still theirs.
 */
export class LeaseExpiry {
  private readonly timer: NodeJS.Timeout;
  private sweeping: Promise<void> | null = null;

  constructor(
    private readonly deps: RunServiceDeps,
    periodMs: number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.timer = setInterval(() => {
      this.sweeping ??= this.sweep()
        .then(() => {}, onError)
        .finally(() => (this.sweeping = null));
    }, periodMs);
    this.timer.unref();
  }

  /** Requeues every run whose lease ran out by now; resolves with how many it requeued. */
  async sweep(): Promise<number> {
    const { store, locks, now } = this.deps;
    let requeued = 0;
    for (const expired of await store.runs.expiredClaims(now())) {
      const done = await locks.run(expired.id, async () => {
        const run = await store.runs.getRun(expired.id);
        if (!run || !canTake('leaseExpired', run.state) || (run.leaseExpiresAt ?? 0) > now()) return null;
        return (await takeBack(this.deps, run, () => store.runs.requeueRun(run.id, now()))) ? run : null;
      });
      if (!done) continue;
      requeued++;
      // AUDIT1: the entry names the agent whose lease ran out.
      const agent = done.claimedBy ?? { id: 'unknown', name: 'Unknown agent' };
      await recordAuditAs(store.audit, { id: agent.id, name: agent.name, role: 'agent' }, 'run.lease-expired', done.docId, done.id);
    }
    return requeued;
  }

  /** Stops the timer and waits for a sweep under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }
}
