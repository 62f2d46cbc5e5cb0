import { Hocuspocus, type Connection, type Document, type beforeSyncPayload } from '@hocuspocus/server';

/*
 * Every use Tandem makes of Hocuspocus internals — what its types show but its documentation does
 * not promise — in one place. package.json pins @hocuspocus/* exactly (4.7.0 for the server), and
 * tests/integration/hocuspocus-internals.test.ts holds one contract test for each function here:
 * it fails when an upgrade changes the behaviour relied upon. Each comment names the upstream hook
 * that would make the function unnecessary.
 */

/**
 * Whether Hocuspocus is loading the document `name` now (its `loadingDocuments` map): a read must
 * then go through a connection, which waits for the load, instead of the store, which may not yet
 * hold what the load will apply.
 * Upstream: a public `isLoading(name)` (or a `getDocument(name)` that awaits a load in progress).
 */
export function isDocumentLoading(hocuspocus: Hocuspocus, name: string): boolean {
  return hocuspocus.loadingDocuments.has(name);
}

/** How many documents Hocuspocus is loading now (shutdown waits for them as for loaded ones). */
export function loadingDocumentCount(hocuspocus: Hocuspocus): number {
  return hocuspocus.loadingDocuments.size;
}

/**
 * Runs the `beforeSync` hooks of every extension for `connection`, as Hocuspocus does before it
 * answers a sync message (its `Connection.callbacks.beforeSync`, which the MessageReceiver calls).
 * server/sync/fresh-sync.ts answers a sync step 1 in Hocuspocus's place and must run them
 * the same way.
 * Upstream: an `onSyncStep1` hook that may answer the step 1 itself (it would replace the
 * substitute frame of fresh-sync.ts and this call).
 */
export function runBeforeSyncHooks(connection: Connection, payload: Pick<beforeSyncPayload, 'type' | 'payload'>): Promise<void> {
  return connection.callbacks.beforeSync(connection, payload);
}

/**
 * Runs `load` with the document's `update` listeners detached (lib0's Observable `_observers`):
 * while Hocuspocus loads a document nobody is connected to it, and its own listener
 * (Document.handleUpdate) would only have Yjs encode the whole loaded state once more to broadcast
 * it to no one, or, once the first connection is added, to send it a second time beside its sync
 * reply.
 * Upstream: `onLoadDocument` returning an update that Hocuspocus applies before it attaches its
 * broadcast (it applies a returned Y.Doc's state after attaching it today).
 */
export function withoutUpdateListeners(document: Document, load: () => void): void {
  const listeners = [...(document._observers.get('update') ?? [])];
  for (const listener of listeners) document.off('update', listener);
  try {
    load();
  } finally {
    for (const listener of listeners) document.on('update', listener);
  }
}

/**
 * Hocuspocus, unloading only the document it holds now under a name. Hocuspocus 4.7 looks a
 * document up by name when it unloads one: an unload asked for a document already unloaded
 * (the store hooks schedule one on a timer after every store, and a direct connection's
 * disconnect stores and unloads at once) finds the document loaded again since under that
 * name, sees that the old one has no connection, and removes the new one from `documents`,
 * connections and all. The peers on it then hear nothing more: the next writer loads a third
 * copy. An unload of a document that is no longer the one held does nothing here.
 * Upstream: `unloadDocument` comparing the document it was given with the one it holds.
 */
export class SafeUnloadHocuspocus extends Hocuspocus {
  override async unloadDocument(document: Document): Promise<void> {
    if (this.documents.get(document.name) !== document) return;
    await super.unloadDocument(document);
  }
}

/**
 * The client ids an inbound awareness update announces, from the `states` that
 * `beforeHandleAwareness` receives. Hocuspocus 4.7 decodes the update into a scratch Awareness
 * whose constructor sets its own local state to `{}`, so `states` starts with that entry, which is
 * no peer's: a leading empty state is skipped.
 * Upstream: `beforeHandleAwareness` given the decoded entries only.
 */
export function announcedClientIds(states: Map<number, Record<string, unknown>>): number[] {
  const ids = [...states.keys()];
  const first = ids.length > 0 ? states.get(ids[0]) : undefined;
  return first && Object.keys(first).length === 0 ? ids.slice(1) : ids;
}
