import { trashRetentionMs } from '../../shared/protocol/limits.ts';
import type { Store } from '../store/store.ts';
import { indexUnindexedDocs } from './search-index.ts';

/** How often the trash is looked at for documents past their 30 days. */
export const purgeIntervalMs = 60 * 60 * 1000;

/**
 * The catalogue's background work, started with the server: indexes the documents the search
 * index does not know yet (CAT2, documents made before it existed), and purges the trash
 * (CAT3) at start and then every `intervalMs` (an hour): every document trashed over 30 days
 * ago is removed for good. Several instances may purge at once; each document goes once.
 * `stop` waits for work under way, so the store can close after it.
 */
export function startCatalogueUpkeep(options: {
  store: Store;
  onError: (error: unknown) => void;
  now?: () => number;
  intervalMs?: number;
}): { stop(): Promise<void> } {
  const now = options.now ?? Date.now;
  let stopped = false;
  let work: Promise<unknown> = Promise.resolve();
  const run = (task: () => Promise<unknown>) => {
    work = work.then(() => (stopped ? undefined : task())).catch(options.onError);
  };
  const purge = () => run(() => options.store.purgeTrash(now() - trashRetentionMs));
  purge();
  run(() => indexUnindexedDocs(options.store, options.onError));
  const timer = setInterval(purge, options.intervalMs ?? purgeIntervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await work;
    },
  };
}
