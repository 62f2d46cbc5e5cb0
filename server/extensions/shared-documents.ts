import { Redis } from '@hocuspocus/extension-redis';
import IORedis from 'ioredis';
import type { afterStoreDocumentPayload, beforeUnloadDocumentPayload, Document, Extension } from '@hocuspocus/server';
import { extensionPriority } from '../sync/extension-priorities.ts';

/**
 * Hocuspocus's Redis extension, with its waits moved off the route that wrote. The extension
 * keeps a document loaded (and so subscribed) for `disconnectDelay` after its last connection
 * left, so that the other instances can still ask this one for its last writes; it does so by
 * holding `afterStoreDocument` of a direct connection and `beforeUnloadDocument`, both of which
 * `DirectConnection.disconnect` awaits: a second or two for every document an API call opens.
 * Here the store does not wait (the unload's wait covers it), and the first unload of a document
 * is refused (Hocuspocus keeps a document whose `beforeUnloadDocument` throws) and asked for again
 * after `disconnectDelay`, when it goes through: the document stays subscribed as long, and
 * nobody waits for it.
 */
class SharedDocuments extends Redis {
  extensionName = 'TandemSharedDocuments';
  override priority = extensionPriority.sharedDocuments;
  private readonly deferred = new WeakSet<Document>();
  private readonly due = new WeakSet<Document>();

  override async afterStoreDocument(payload: afterStoreDocumentPayload): Promise<void> {
    await super.afterStoreDocument({ ...payload, lastTransactionOrigin: undefined });
  }

  override async beforeUnloadDocument({ document, instance }: beforeUnloadDocumentPayload): Promise<void> {
    if (this.due.has(document)) return;
    if (!this.deferred.has(document)) {
      this.deferred.add(document);
      setTimeout(() => {
        this.deferred.delete(document);
        this.due.add(document);
        // Unloads nothing if a connection came back meanwhile.
        void instance.unloadDocument(document).finally(() => this.due.delete(document));
      }, this.configuration.disconnectDelay);
    }
    throw new UnloadDeferred();
  }
}

/**
 * Stops this round of Hocuspocus's unload hooks; the document is unloaded later. Without a
 * message, as Hocuspocus logs the message of every error a hook throws and this is no error.
 */
class UnloadDeferred extends Error {
  constructor() {
    super('');
    this.name = 'UnloadDeferred';
  }
}

/**
 * SCALE4: with `REDIS_URL`, Hocuspocus's Redis extension shares every live document between the
 * instances on that Redis: updates, awareness and stateless broadcasts reach the clients of
 * every instance. It goes first (server/sync/extension-priorities.ts): its `onStoreDocument` lets one instance
 * at a time store a document, and its `beforeUnloadDocument` runs before the others'.
 * Without a URL, nothing: one instance serves its documents alone.
 */
export function sharedDocuments(redisUrl: string | null): Extension[] {
  if (!redisUrl) return [];
  return [new SharedDocuments({ createClient: () => new IORedis(redisUrl) })];
}
