import type { Hocuspocus } from '@hocuspocus/server';
import type { Store } from '../store/store.ts';
import { AgentService } from './agent-service.ts';
import { LeaseExpiry } from './lease-expiry.ts';
import { QueueNotifier } from './queue-notifier.ts';
import { KeyedLock } from './run-locks.ts';
import type { RunScopes } from './run-scopes.ts';
import type { TextWriters } from '../extensions/text-writers.ts';
import type { ClientOwners } from '../authorship/client-owners.ts';
import { ReviewService } from './review-service.ts';
import { RevertService } from './revert-service.ts';
import { CancelService } from './cancel-service.ts';
import { AgentRoster } from './agent-roster.ts';

/** What every run service works with. */
export interface RunServiceDeps {
  store: Store;
  hocuspocus: Hocuspocus;
  scopes: RunScopes;
  /** Who wrote which Yjs client's text, for the review's notes. */
  writers: TextWriters;
  /** The owners of the text's client ids (WHO2, WHO3). */
  owners: ClientOwners;
  locks: KeyedLock;
  notifier: QueueNotifier;
  /** The agents seen lately (RUN7). */
  roster: AgentRoster;
  leaseMs: number;
  /** The clock of claims, heartbeats and lease expiry: `Date.now` but in tests. */
  now: () => number;
}

export interface RunServices {
  agents: AgentService;
  review: ReviewService;
  /** Revert an accepted run, undo a discard (REV8, REV9). */
  revert: RevertService;
  /** Withdraw a queued or claimed run (RUN6). */
  cancel: CancelService;
  /** Wakes long polls: notify when a run may have been queued (the composition root does, on every change of a run). */
  notifier: QueueNotifier;
  roster: AgentRoster;
  expiry: LeaseExpiry;
  /** Answers waiting long polls and stops the lease timer. */
  close(): Promise<void>;
}

/** The run lifecycle after Send: agents' steps, review, and leases that run out. */
export function createRunServices(options: Omit<RunServiceDeps, 'locks' | 'notifier' | 'roster'> & { onError: (error: unknown) => void }): RunServices {
  const { onError, ...given } = options;
  const deps: RunServiceDeps = { ...given, locks: new KeyedLock(), notifier: new QueueNotifier(), roster: new AgentRoster(given.now, given.store.agentSightings, options.onError) };
  const expiry = new LeaseExpiry(deps, Math.max(25, Math.min(1000, Math.floor(deps.leaseMs / 4))), onError);
  return {
    agents: new AgentService(deps),
    review: new ReviewService(deps),
    revert: new RevertService(deps),
    cancel: new CancelService(deps),
    notifier: deps.notifier,
    roster: deps.roster,
    expiry,
    async close() {
      deps.notifier.close();
      await expiry.stop();
    },
  };
}
