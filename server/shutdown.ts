import { setTimeout as delay } from 'node:timers/promises';
import type { Hocuspocus } from '@hocuspocus/server';
import { loadingDocumentCount } from './sync/hocuspocus-internals.ts';

/**
 * Closes every Hocuspocus connection (call it after the sockets are cut, so no client reopens
 * a document meanwhile), runs the pending stores and resolves once every document
 * is stored and unloaded (or after `timeoutMs`, when a store keeps failing).
 */
export async function closeHocuspocus(hocuspocus: Hocuspocus, timeoutMs = 10_000): Promise<void> {
  hocuspocus.closeConnections();
  hocuspocus.flushPendingStores();
  const deadline = Date.now() + timeoutMs;
  while (hocuspocus.getDocumentsCount() > 0 || loadingDocumentCount(hocuspocus) > 0) {
    if (Date.now() > deadline) {
      console.error('[tandem] some documents were still open at shutdown:', [...hocuspocus.documents.keys()]);
      break;
    }
    await delay(10);
    hocuspocus.flushPendingStores();
  }
  await hocuspocus.hooks('onDestroy', { instance: hocuspocus });
}
