import type { Store } from '../store/store.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { workPool } from '../work/work-pool.ts';
import type { SearchEntry } from '../store/doc-search.ts';

/**
 * CAT2: reads a document's title and text from its state (in the work pool) and writes them to
 * the search index. With `handOver`, `state` is moved to the thread rather than copied, and is
 * unusable here afterwards: for a state encoded only for this.
 */
export async function indexDocState(store: Store, docId: string, state: Uint8Array, handOver = false): Promise<SearchEntry> {
  const entry = await workPool().run('searchEntry', state, handOver ? [state.buffer as ArrayBuffer] : []);
  await store.search.index(docId, entry);
  return entry;
}

/**
 * Indexes the documents the index has no entry for (those made before it existed), a batch at
 * a time, in the background of a server's start, and gives the catalogue their title as shown
 * (CAT1: a legacy "Untitled" becomes the first line), keeping their time of change. A document
 * that fails is logged and left for the next start.
 */
export async function indexUnindexedDocs(store: Store, onError: (error: unknown) => void): Promise<number> {
  let indexed = 0;
  const failed = new Set<string>();
  for (;;) {
    const ids = (await store.search.unindexed(failed.size + 50)).filter((id) => !failed.has(id));
    if (ids.length === 0) return indexed;
    for (const id of ids) {
      try {
        const state = await store.loadState(docName(id));
        if (!state) {
          await store.search.index(id, { title: '', text: '' });
        } else {
          const { title } = await indexDocState(store, id, state);
          const record = await store.getDoc(id);
          if (record && record.title !== title) await store.updateDoc(id, { title, updatedAt: record.updatedAt });
        }
        indexed++;
      } catch (error) {
        failed.add(id);
        onError(error);
      }
    }
  }
}
