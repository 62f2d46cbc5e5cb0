import type { RunStore } from './run-store.ts';

/** Told `(runId, docId)` after a write of a run committed; the write resolves once it settles. */
export type RunChangeListener = (runId: string, docId: string) => void | Promise<void>;

/** The writes of a run store, each addressed by the run id in its first argument. */
const runWrites = [
  'claimRun',
  'renewLease',
  'requeueRun',
  'recordBatch',
  'recordActivity',
  'completeRun',
  'failRun',
  'cancelRun',
  'decideRun',
  'decideItem',
  'chooseVariant',
  'storeScope',
  'revertRun',
  'reopenRun',
  'unrevertRun',
] as const satisfies readonly (keyof RunStore)[];

/**
 * The run store's "run changed" event: wraps a store so that every write that committed (a run
 * created, a transition taken, a batch, a scope stored…) tells each listener `(runId, docId)`
 * before it resolves. A write that changed nothing tells no one. Listeners subscribe through
 * `onRunChanged`, so whatever follows the store (the `<id>/runs` mirror, the queue's long polls)
 * cannot be forgotten by one caller; a listener's failure rejects the write's promise (the write
 * itself stays committed).
 */
export function withRunChanges(inner: Omit<RunStore, 'onRunChanged'>, docOf: (runId: string) => Promise<string | null>): RunStore {
  const listeners = new Set<RunChangeListener>();
  const changed = async (runId: string, docId: string | null) => {
    if (docId === null) return;
    await Promise.all([...listeners].map((listener) => listener(runId, docId)));
  };
  const store: RunStore = {
    ...inner,
    async createRun(run) {
      const result = await inner.createRun(run);
      if (result.ok) await changed(run.id, run.docId);
      return result;
    },
    onRunChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  for (const name of runWrites) {
    const write = inner[name] as (id: string, ...rest: unknown[]) => Promise<boolean>;
    (store[name] as typeof write) = async (id, ...rest) => {
      const done = await write(id, ...rest);
      if (done) await changed(id, await docOf(id));
      return done;
    };
  }
  return store;
}
