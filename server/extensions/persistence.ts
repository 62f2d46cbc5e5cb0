import { Database } from '@hocuspocus/extension-database';
import type { Store } from '../store/store.ts';

/** Loads every Hocuspocus document from `store` and saves its full state there on each store. */
export function persistence(store: Store): Database {
  return new Database({
    fetch: ({ documentName }) => store.loadState(documentName),
    store: ({ documentName, state }) => store.saveState(documentName, state),
  });
}
