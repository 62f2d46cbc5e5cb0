import { Hocuspocus, Server, type Connection, type Extension, type beforeSyncPayload } from '@hocuspocus/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import {
  announcedClientIds,
  isDocumentLoading,
  loadingDocumentCount,
  runBeforeSyncHooks,
  withoutUpdateListeners,
} from '../../server/sync/hocuspocus-internals.ts';
import { connectPeer, roundTrip, waitFor, type Peer } from '../helpers/peer.ts';

/*
 * Contract tests for the Hocuspocus internals Tandem relies on (server/sync/hocuspocus-internals.ts):
 * each fails when an upgrade of the exactly pinned @hocuspocus/server changes the behaviour relied
 * upon, whether the change breaks Tandem or makes one of its workarounds unnecessary.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listening(extensions: Extension[]): Promise<{ server: Server; url: string }> {
  const server = new Server({ port: 0, address: '127.0.0.1', quiet: true, stopOnSignals: false, extensions });
  await server.listen();
  cleanups.push(() => server.destroy());
  return { server, url: `ws://127.0.0.1:${server.address.port}` };
}

function peerOn(url: string, awareness = false): Peer {
  const peer = connectPeer({ wsUrl: url, name: 'doc', token: 'any', awareness });
  cleanups.push(() => peer.destroy());
  return peer;
}

describe('Hocuspocus internals Tandem relies on', () => {
  it('lists a document in `loadingDocuments` while its load hooks run, and not once it is loaded', async () => {
    let release!: () => void;
    const loadHeld = new Promise<void>((resolve) => (release = resolve));
    const hocuspocus = new Hocuspocus({ quiet: true, extensions: [{ onLoadDocument: () => loadHeld }] });
    const opening = hocuspocus.openDirectConnection('doc');
    await waitFor(() => isDocumentLoading(hocuspocus, 'doc'));
    expect(loadingDocumentCount(hocuspocus)).toBe(1);
    expect(isDocumentLoading(hocuspocus, 'other')).toBe(false);

    release();
    const connection = await opening;
    expect(isDocumentLoading(hocuspocus, 'doc')).toBe(false);
    expect(loadingDocumentCount(hocuspocus)).toBe(0);
    expect(hocuspocus.documents.has('doc')).toBe(true);
    await connection.disconnect();
  });

  it("runs every extension's `beforeSync` hook through `Connection.callbacks.beforeSync`", async () => {
    const seen: beforeSyncPayload[] = [];
    let connection: Connection | undefined;
    const { url } = await listening([
      {
        async connected(payload) {
          connection = payload.connection;
        },
        async beforeSync(payload) {
          seen.push(payload);
        },
      },
    ]);
    const peer = peerOn(url);
    await peer.synced;
    await waitFor(() => connection !== undefined);
    const before = seen.length;

    const payload = Uint8Array.of(0);
    await runBeforeSyncHooks(connection!, { type: 0, payload });
    expect(seen.length).toBe(before + 1);
    expect(seen.at(-1)).toMatchObject({ type: 0, documentName: 'doc', connection });
    expect(seen.at(-1)!.payload).toBe(payload);
  });

  it("broadcasts a document's changes from its `update` listeners, which can be detached for a while", async () => {
    const { server, url } = await listening([]);
    const peer = peerOn(url);
    await peer.synced;
    const document = server.hocuspocus.documents.get('doc')!;
    const listenerCount = document._observers.get('update')?.size ?? 0;
    expect(listenerCount).toBeGreaterThan(0);

    // Two writers of their own, so that the second change does not depend on the first.
    const hidden = new Y.Doc();
    hidden.getMap('m').set('hidden', 1);
    const shown = new Y.Doc();
    shown.getMap('m').set('shown', 2);
    withoutUpdateListeners(document, () => Y.applyUpdate(document, Y.encodeStateAsUpdate(hidden)));
    Y.applyUpdate(document, Y.encodeStateAsUpdate(shown));

    await waitFor(() => peer.ydoc.getMap('m').has('shown'));
    expect(peer.ydoc.getMap('m').has('hidden')).toBe(false);
    expect(document._observers.get('update')?.size).toBe(listenerCount);
    // The change made without listeners is in the document: the next sync brings it.
    await roundTrip(peer);
    expect(peer.ydoc.getMap('m').get('hidden')).toBe(1);
  });

  it('unloads by name: unloading an old copy removes the copy loaded since (why SafeUnloadHocuspocus exists)', async () => {
    const hocuspocus = new Hocuspocus({ quiet: true });
    const old = await hocuspocus.openDirectConnection('doc');
    const oldDocument = old.document!;
    await old.disconnect();
    expect(hocuspocus.documents.has('doc')).toBe(false);

    const current = await hocuspocus.openDirectConnection('doc');
    expect(hocuspocus.documents.get('doc')).not.toBe(oldDocument);
    await Hocuspocus.prototype.unloadDocument.call(hocuspocus, oldDocument);
    expect(hocuspocus.documents.has('doc')).toBe(false);
    await current.disconnect().catch(() => {});
  });

  it('keeps a document loaded when a `beforeUnloadDocument` hook throws (the Redis extension defers unloads so)', async () => {
    let refuse = true;
    const hocuspocus = new Hocuspocus({
      quiet: true,
      extensions: [
        {
          async beforeUnloadDocument() {
            if (refuse) throw new Error('');
          },
        },
      ],
    });
    const connection = await hocuspocus.openDirectConnection('doc');
    const document = connection.document!;
    await connection.disconnect().catch(() => {});
    expect(hocuspocus.documents.get('doc')).toBe(document);

    refuse = false;
    await hocuspocus.unloadDocument(document);
    expect(hocuspocus.documents.has('doc')).toBe(false);
  });

  it('hands `beforeHandleAwareness` a scratch entry `{}` first, then the entries the client sent', async () => {
    const calls: Map<number, Record<string, unknown>>[] = [];
    const { url } = await listening([
      {
        async beforeHandleAwareness({ states }) {
          calls.push(new Map(states));
        },
      },
    ]);
    const peer = peerOn(url, true);
    await peer.synced;
    peer.provider.setAwarenessField('user', { name: 'Ada' });
    const clientId = peer.provider.awareness!.clientID;
    await waitFor(() => calls.some((states) => states.get(clientId)?.user !== undefined));

    const states = calls.find((entries) => entries.get(clientId)?.user !== undefined)!;
    const [firstId, firstState] = [...states][0];
    expect(firstId).not.toBe(clientId);
    expect(firstState).toEqual({});
    expect(announcedClientIds(states)).toEqual([clientId]);
  });
});
