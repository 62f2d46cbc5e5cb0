import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hocuspocus } from '@hocuspocus/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { docParts } from '../../shared/model/doc-layout.ts';
import { attachCollabSocket } from '../../server/sync/collab-socket.ts';
import { SocketCounts } from '../../server/sync/collab-gate.ts';
import { Persistence } from '../../server/sync/persistence.ts';
import { FreshSync } from '../../server/sync/fresh-sync.ts';
import { SocketLimits } from '../../server/sync/socket-limits.ts';
import type { Claims } from '../../shared/protocol/claims.ts';
import { resolveLimits } from '../../server/limits.ts';
import { closeHocuspocus } from '../../server/shutdown.ts';
import { openSqliteStore } from '../../server/store/sqlite-store.ts';
import type { SyncStore } from '../../server/store/store.ts';
import type { InlineUpdateLog } from '../../server/store/update-log.ts';
import { connectPeer, waitFor, type Peer } from '../helpers/peer.ts';
import { docOnDisk } from '../helpers/sqlite-on-disk.ts';

/** The text of `name` in the file, read through a handle of its own as a restarted server would. */
const textOnDisk = (dir: string, name: string): string => docParts(docOnDisk(dir, name)).html.toString();

describe('group commit (DUR1)', () => {
  let dataDir: string;
  let store: SyncStore;
  let hocuspocus: Hocuspocus;
  let httpServer: HttpServer;
  let collab: ReturnType<typeof attachCollabSocket>;
  const peers: Peer[] = [];
  /** How many updates each commit of client updates held. */
  let commits: number[];
  let diskFull: boolean;

  afterEach(async () => {
    for (const peer of peers.splice(0)) peer.destroy();
    await collab.close();
    await closeHocuspocus(hocuspocus);
    await new Promise((resolve) => httpServer.close(resolve));
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Hocuspocus with Persistence behind Tandem's collab socket (whose Outbox makes group commits possible). */
  async function open(): Promise<string> {
    dataDir = mkdtempSync(join(tmpdir(), 'tandem-group-'));
    store = openSqliteStore(dataDir);
    commits = [];
    diskFull = false;
    const log: InlineUpdateLog = {
      ...store.updates,
      inline: {
        appendAll: (entries) => {
          if (diskFull) throw new Error('database or disk is full');
          commits.push(entries.length);
          return store.updates.inline.appendAll(entries);
        },
        append: (name, update) => {
          if (diskFull) throw new Error('database or disk is full');
          return store.updates.inline.append(name, update);
        },
      },
    };
    const limits = { updates: Number.MAX_SAFE_INTEGER, bytes: Number.MAX_SAFE_INTEGER };
    // Every token is an editor's: the socket gate lets a connection's sync step 2 through once SocketLimits has seen it authenticate.
    const claims = { sub: 'writer', name: 'Writer', role: 'editor', iat: 0, exp: Number.MAX_SAFE_INTEGER } as Claims;
    const socketLimits = new SocketLimits({ auth: { principalOf: () => claims } });
    const freshSync = new FreshSync();
    hocuspocus = new Hocuspocus({ quiet: true, extensions: [socketLimits, new Persistence({ log, onError: () => {}, limits }), freshSync] });
    httpServer = createServer();
    collab = attachCollabSocket(httpServer, { hocuspocus, counts: new SocketCounts(resolveLimits()), freshSync });
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    return `ws://127.0.0.1:${(httpServer.address() as AddressInfo).port}/collab`;
  }

  function writer(wsUrl: string, name: string): Peer {
    const peer = connectPeer({ wsUrl, name, token: 'any', awareness: false });
    peers.push(peer);
    return peer;
  }

  it('[DUR1] commits the updates of several sockets together and acknowledges each only once it is on disk', async () => {
    const wsUrl = await open();
    const writers = Array.from({ length: 4 }, () => writer(wsUrl, 'together'));
    await Promise.all(writers.map((peer) => peer.synced));
    const missingAtAck: string[] = [];
    for (const [index, peer] of writers.entries()) {
      // Runs in the turn in which the provider takes the acknowledgement in: the file is read as it
      // was when the server released it.
      peer.provider.on('unsyncedChanges', ({ number }: { number: number }) => {
        if (number !== 0) return;
        const own = docParts(peer.ydoc).html.toString().match(new RegExp(`<${index}:\\d+>`, 'g')) ?? [];
        const onDisk = textOnDisk(dataDir, 'together');
        missingAtAck.push(...own.filter((token) => !onDisk.includes(token)));
      });
    }
    for (let round = 0; round < 30; round++) {
      for (const [index, peer] of writers.entries()) {
        const ytext = docParts(peer.ydoc).html;
        for (let n = 0; n < 3; n++) ytext.insert(0, `<${index}:${round * 3 + n}>`);
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await waitFor(() => writers.every((peer) => peer.provider.unsyncedChanges === 0), 10_000);
    expect(missingAtAck).toEqual([]);
    for (let index = 0; index < writers.length; index++) {
      for (let n = 0; n < 90; n++) expect(textOnDisk(dataDir, 'together')).toContain(`<${index}:${n}>`);
    }
    // Several updates shared a commit.
    expect(Math.max(...commits)).toBeGreaterThan(1);
  });

  it('[DUR1] closes the sockets of a failed commit without acknowledging, and acknowledges once the updates are on disk', async () => {
    const wsUrl = await open();
    const [first, second] = [writer(wsUrl, 'failing'), writer(wsUrl, 'failing')];
    await Promise.all([first.synced, second.synced]);
    const reported = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const closed = [first, second].map((peer) => new Promise((resolve) => peer.provider.on('close', resolve)));
      diskFull = true;
      docParts(first.ydoc).html.insert(0, 'one ');
      docParts(second.ydoc).html.insert(0, 'two ');
      await Promise.all(closed);
      expect(first.provider.unsyncedChanges).toBeGreaterThan(0);
      expect(second.provider.unsyncedChanges).toBeGreaterThan(0);
      expect(textOnDisk(dataDir, 'failing')).toBe('');

      const onDiskAtAck: string[] = [];
      for (const peer of [first, second]) {
        peer.provider.on('unsyncedChanges', ({ number }: { number: number }) => {
          if (number === 0) onDiskAtAck.push(textOnDisk(dataDir, 'failing'));
        });
      }
      diskFull = false;
      await waitFor(() => first.provider.unsyncedChanges === 0 && second.provider.unsyncedChanges === 0, 10_000);
      expect(onDiskAtAck).toHaveLength(2);
      for (const text of onDiskAtAck) expect(text.includes('one') && text.includes('two')).toBe(true);
    } finally {
      reported.mockRestore();
    }
  });
});
