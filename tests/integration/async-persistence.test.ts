import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Server } from '@hocuspocus/server';
import * as Y from 'yjs';
import { Persistence } from '../../server/sync/persistence.ts';
import { openPostgresStore } from '../../server/store/pg-store.ts';
import type { Store } from '../../server/store/store.ts';
import type { UpdateLog } from '../../server/store/update-log.ts';
import { connectPeer, waitFor } from '../helpers/peer.ts';
import { postgresSchemas } from '../helpers/pg-schema.ts';

/*
 * The persistence (server/sync/persistence.ts) on a bare Hocuspocus over the real PostgreSQL
 * update log, which has no inline appends (server/sync/append-before-apply.ts): what reaches the
 * database, and when, relative to the acknowledgement.
 */

const postgres = postgresSchemas();
let store: Store;
let server: Server;

beforeAll(() => postgres.setUp());
afterAll(() => postgres.tearDown());
afterEach(async () => {
  await server?.destroy();
  await store?.close();
});

/** The text `t` of what the database holds for `name`, read as a restarted server would. */
async function storedText(name: string): Promise<string> {
  const ydoc = new Y.Doc();
  const state = await store.loadState(name);
  if (state) Y.applyUpdate(ydoc, state);
  return ydoc.getText('t').toString();
}

async function start(log: UpdateLog): Promise<{ persistence: Persistence; wsUrl: string }> {
  const persistence = new Persistence({ log, onError: () => {} });
  // No debounced store (compaction) while a test looks at the log.
  server = new Server({ port: 0, address: '127.0.0.1', quiet: true, stopOnSignals: false, debounce: 600_000, maxDebounce: 600_000, extensions: [persistence] });
  await server.listen();
  return { persistence, wsUrl: `ws://127.0.0.1:${server.address.port}` };
}

describe('durability over an asynchronous log', { timeout: 30_000 }, () => {
  it('[SCALE2] acknowledges no update whose append failed, and has it in the database when the resent one is acknowledged', async () => {
    store = await openPostgresStore(await postgres.fresh());
    const updates = store.updates;
    let down = false;
    const { wsUrl } = await start({
      ...updates,
      append: async (name, update) => {
        if (down) throw new Error('the database is unreachable');
        return updates.append(name, update);
      },
    });
    const peer = connectPeer({ wsUrl, name: 'flaky', token: 'any' });
    const reported = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await peer.synced;
      await waitFor(() => peer.provider.unsyncedChanges === 0);
      const closed = new Promise((resolve) => peer.provider.on('close', resolve));
      down = true;
      peer.ydoc.getText('t').insert(0, 'kept');
      await closed;
      expect(peer.provider.unsyncedChanges).toBeGreaterThan(0);
      expect(await storedText('flaky')).toBe('');

      const storedAtAck: Promise<string>[] = [];
      peer.provider.on('unsyncedChanges', ({ number }: { number: number }) => {
        if (number === 0) storedAtAck.push(storedText('flaky'));
      });
      down = false;
      await waitFor(() => peer.provider.unsyncedChanges === 0, 10_000);
      expect(await storedAtAck[0]).toBe('kept');
    } finally {
      reported.mockRestore();
      peer.destroy();
    }
  });

  it('[SCALE2] has a server-side write in the database once settled() resolves, and logs a client update once', async () => {
    store = await openPostgresStore(await postgres.fresh());
    const { persistence, wsUrl } = await start(store.updates);
    const peer = connectPeer({ wsUrl, name: 'mixed', token: 'any' });
    try {
      await peer.synced;
      peer.ydoc.getText('t').insert(0, 'client ');
      await waitFor(() => peer.provider.unsyncedChanges === 0);
      const connection = await server.hocuspocus.openDirectConnection('mixed');
      connection.document!.transact(() => connection.document!.getText('t').insert(7, 'server'));
      await persistence.settled();
      expect(await storedText('mixed')).toBe('client server');
      // The client's update once (appended before it was applied, not again from the update
      // event; its empty first sync step 2 not at all), the server's once.
      const logged = await (store.updates).read('mixed');
      expect(logged.state).toBeNull();
      expect(logged.updates).toHaveLength(2);
      await connection.disconnect();
    } finally {
      peer.destroy();
    }
  });

  it('[SCALE2] keeps settled() pending while a server-side write is still being appended', async () => {
    store = await openPostgresStore(await postgres.fresh());
    const updates = store.updates;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let entered!: () => void;
    const appending = new Promise<void>((resolve) => (entered = resolve));
    const { persistence } = await start({
      ...updates,
      append: async (name, update) => {
        entered();
        await gate;
        return updates.append(name, update);
      },
    });
    const connection = await server.hocuspocus.openDirectConnection('gated');
    try {
      connection.document!.transact(() => connection.document!.getText('t').insert(0, 'held'));
      let settled = false;
      const done = persistence.settled().then(() => (settled = true));
      await appending;
      expect(settled).toBe(false);
      expect(await storedText('gated')).toBe('');
      open();
      await done;
      expect(await storedText('gated')).toBe('held');
    } finally {
      open();
      await connection.disconnect();
    }
  });
});
