import * as Y from 'yjs';
import type { Hocuspocus } from '@hocuspocus/server';
import type { Store } from '../store/store.ts';
import { isDocumentLoading } from '../sync/hocuspocus-internals.ts';
import { withDocument } from './with-document.ts';

/**
 * Calls `read` with the current state of a Hocuspocus document: the live document when
 * Hocuspocus holds it (through a direct connection, closed afterwards), else a copy of the
 * stored state. `read` must not write and must not keep the Y.Doc.
 */
export async function readDocState<T>(
  hocuspocus: Hocuspocus,
  store: Store,
  name: string,
  read: (ydoc: Y.Doc) => T,
): Promise<T> {
  if (hocuspocus.documents.has(name) || isDocumentLoading(hocuspocus, name)) {
    return withDocument(hocuspocus, name, read);
  }
  const ydoc = new Y.Doc();
  try {
    const state = await store.loadState(name);
    if (state) Y.applyUpdate(ydoc, state);
    return read(ydoc);
  } finally {
    ydoc.destroy();
  }
}
