import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hocuspocus, Server } from '@hocuspocus/server';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as Y from 'yjs';
import { docParts } from '../../shared/model/doc-layout.ts';
import { Persistence } from '../../server/sync/persistence.ts';
import { openSqliteStore } from '../../server/store/sqlite-store.ts';
import { sqliteUpdateLog } from '../../server/store/sqlite-update-log.ts';
import type { SyncStore } from '../../server/store/store.ts';
import { applyStored, type InlineUpdateLog } from '../../server/store/update-log.ts';
import { closeHocuspocus } from '../../server/shutdown.ts';
import { connectPeer, waitFor } from '../helpers/peer.ts';
import { docOnDisk } from '../helpers/sqlite-on-disk.ts';


describe('logging and compaction', () => {
  let dataDir: string;
  let store: SyncStore;
  let hocuspocus: Hocuspocus;

  afterEach(async () => {
    await closeHocuspocus(hocuspocus);
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const noLimits = { updates: Number.MAX_SAFE_INTEGER, bytes: Number.MAX_SAFE_INTEGER };

  function open(limits: { updates: number; bytes: number }, wrap = (log: InlineUpdateLog) => log) {
    dataDir = mkdtempSync(join(tmpdir(), 'tandem-log-'));
    store = openSqliteStore(dataDir);
    hocuspocus = new Hocuspocus({ quiet: true, extensions: [new Persistence({ log: wrap(store.updates), onError: (error) => console.error(error), limits })] });
  }

  const stored = async (name: string) => {
    const ydoc = new Y.Doc();
    applyStored(ydoc, await store.updates.read(name));
    return ydoc;
  };

  it('[DUR3] compacts a document whose log passes its limit while it stays open, and loses no update', async () => {
    open({ updates: 25, bytes: Number.MAX_SAFE_INTEGER });
    const connection = await hocuspocus.openDirectConnection('compacted');
    const ydoc = connection.document!;
    const ytext = docParts(ydoc).html;
    for (let n = 0; n < 60; n++) ydoc.transact(() => ytext.insert(ytext.length, `${n},`));
    await waitFor(async () => (await store.updates.read('compacted')).updates.length < 25);
    const copy = await stored('compacted');
    expect(docParts(copy).html.toString()).toBe(ytext.toString());
    expect(Y.encodeStateVector(copy)).toEqual(Y.encodeStateVector(ydoc));
    await connection.disconnect();
  });

  it('[DUR3] keeps in the log an update made while a compaction is being written', async () => {
    let release!: () => void;
    const written = new Promise<void>((resolve) => (release = resolve));
    // The real log, whose compaction waits until the test lets it write.
    open(noLimits, (log) => ({ ...log, compact: async (name, state, throughSeq) => written.then(() => log.compact(name, state, throughSeq)) }));
    const connection = await hocuspocus.openDirectConnection('racing');
    const document = connection.document!;
    const ytext = docParts(document).html;
    document.transact(() => ytext.insert(0, 'before'));
    const payload = { clientsCount: 1, document, documentName: 'racing', instance: hocuspocus, lastContext: {}, lastTransactionOrigin: { source: 'local' as const } };
    const compacting = hocuspocus.storeDocumentHooks(document, payload, true);
    await waitFor(() => document.saveMutex.isLocked(), 5000, 1);
    document.transact(() => ytext.insert(ytext.length, ' after'));
    release();
    await compacting;

    const log = await store.updates.read('racing');
    expect(log.updates).toHaveLength(1);
    const onlyState = new Y.Doc();
    Y.applyUpdate(onlyState, (await store.updates.read('racing')).state!);
    expect(docParts(onlyState).html.toString()).toBe('before');
    expect(docParts(await stored('racing')).html.toString()).toBe('before after');
    await connection.disconnect();
  });

  it('[DUR1] acknowledges nothing of a document whose append failed until the update is on disk', async () => {
    let diskFull = false;
    const refuseWhileFull = <T>(write: () => T): T => {
      if (diskFull) throw new Error('database or disk is full');
      return write();
    };
    dataDir = mkdtempSync(join(tmpdir(), 'tandem-log-'));
    store = openSqliteStore(dataDir);
    const log: InlineUpdateLog = {
      ...store.updates,
      inline: { ...store.updates.inline, append: (name, update) => refuseWhileFull(() => store.updates.inline.append(name, update)) },
      compact: async (name, state, throughSeq) => refuseWhileFull(() => store.updates.compact(name, state, throughSeq)),
    };
    const server = new Server({ port: 0, address: '127.0.0.1', quiet: true, stopOnSignals: false, extensions: [new Persistence({ log, onError: () => {}, limits: noLimits })] });
    hocuspocus = server.hocuspocus;
    await server.listen();
    const peer = connectPeer({ wsUrl: `ws://127.0.0.1:${server.address.port}`, name: 'failing', token: 'any' });
    // Hocuspocus and y-protocols report the failed writes on the console.
    const reported = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await peer.synced;
      await waitFor(() => peer.provider.unsyncedChanges === 0);
      const closed = new Promise((resolve) => peer.provider.on('close', resolve));
      diskFull = true;
      docParts(peer.ydoc).html.insert(0, 'kept');
      await closed;
      expect(peer.provider.unsyncedChanges).toBeGreaterThan(0);

      const onDiskAtAck: string[] = [];
      peer.provider.on('unsyncedChanges', ({ number }: { number: number }) => {
        if (number === 0) onDiskAtAck.push(docParts(docOnDisk(dataDir, 'failing')).html.toString());
      });
      diskFull = false;
      await waitFor(() => peer.provider.unsyncedChanges === 0, 10_000);
      expect(onDiskAtAck[0]).toBe('kept');
      expect(reported.mock.calls.flat().some((value) => String(value).includes('database or disk is full'))).toBe(true);
    } finally {
      reported.mockRestore();
      peer.destroy();
      await server.destroy();
    }
  });

  it('[DUR1] refuses a sync message of a document whose earlier update is still not on disk, and has the notes guard forget what it judged', async () => {
    let diskFull = false;
    dataDir = mkdtempSync(join(tmpdir(), 'tandem-log-'));
    store = openSqliteStore(dataDir);
    const log: InlineUpdateLog = {
      ...store.updates,
      inline: {
        ...store.updates.inline,
        append: (name, update) => {
          if (diskFull) throw new Error('database or disk is full');
          return store.updates.inline.append(name, update);
        },
      },
      // A failed unload keeps the document, and its update not on disk, in memory.
      compact: async (name, state, throughSeq) => {
        if (diskFull) throw new Error('database or disk is full');
        return store.updates.compact(name, state, throughSeq);
      },
    };
    const unjudged: string[] = [];
    const persistence = new Persistence({ log, onError: () => {}, limits: noLimits, onUnjudged: (document) => unjudged.push(document.name) });
    const server = new Server({ port: 0, address: '127.0.0.1', quiet: true, stopOnSignals: false, extensions: [persistence] });
    hocuspocus = server.hocuspocus;
    await server.listen();
    const peer = connectPeer({ wsUrl: `ws://127.0.0.1:${server.address.port}`, name: 'unjudged', token: 'any' });
    const reported = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await peer.synced;
      await waitFor(() => peer.provider.unsyncedChanges === 0);
      const closed = new Promise((resolve) => peer.provider.on('close', resolve));
      diskFull = true;
      docParts(peer.ydoc).html.insert(0, 'kept');
      await closed;
      expect(unjudged).toEqual([]);
      // The provider reconnects and syncs again: the update applied before is still not on disk.
      await waitFor(() => unjudged.length > 0, 10_000);
      expect(unjudged[0]).toBe('unjudged');
      expect(peer.provider.unsyncedChanges).toBeGreaterThan(0);
      expect(docParts(docOnDisk(dataDir, 'unjudged')).html.toString()).toBe('');
    } finally {
      // The disk has room again: the document, kept in memory by its failed unload, can go.
      diskFull = false;
      peer.destroy();
      const kept = hocuspocus.documents.get('unjudged');
      if (kept) await hocuspocus.unloadDocument(kept);
      reported.mockRestore();
      await server.destroy();
    }
  });

  it('[DUR2] keeps logging a document after a server-side write whose append failed', async () => {
    let diskFull = false;
    open(noLimits, (log) => ({
      ...log,
      inline: {
        ...log.inline,
        append: (name, update) => {
          if (diskFull) throw new Error('database or disk is full');
          return log.inline.append(name, update);
        },
      },
    }));
    const connection = await hocuspocus.openDirectConnection('recovering');
    const document = connection.document!;
    const ytext = docParts(document).html;
    diskFull = true;
    expect(() => document.transact(() => ytext.insert(0, 'first '))).toThrow('database or disk is full');
    diskFull = false;
    document.transact(() => ytext.insert(ytext.length, 'second'));
    expect(docParts(await stored('recovering')).html.toString()).toBe('first second');
    await connection.disconnect();
  });

  it('[DUR3] compacts on unload, so a document opened and left with logged updates keeps none', async () => {
    open(noLimits);
    const crashed = new Database(join(dataDir, 'tandem.sqlite'));
    const log = sqliteUpdateLog(crashed);
    const writer = new Y.Doc();
    writer.on('update', (update: Uint8Array) => log.append('left', update));
    docParts(writer).html.insert(0, 'written before a crash');
    crashed.close();
    expect((await store.updates.read('left')).updates.length).toBe(1);

    const connection = await hocuspocus.openDirectConnection('left');
    expect(docParts(connection.document!).html.toString()).toBe('written before a crash');
    await connection.disconnect();
    await waitFor(() => !hocuspocus.documents.has('left'));
    const after = await store.updates.read('left');
    expect(after.updates).toEqual([]);
    expect(docParts(await stored('left')).html.toString()).toBe('written before a crash');
  });
});

describe('sequence numbers', () => {
  it('[DUR3] keep growing for a document after a compaction emptied its log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tandem-seq-'));
    const own = openSqliteStore(dir);
    try {
      const update = Y.encodeStateAsUpdate(new Y.Doc());
      const first = [own.updates.inline.append('doc', update), own.updates.inline.append('doc', update), own.updates.inline.append('other', update)];
      expect(first).toEqual([1, 2, 1]);
      await own.updates.compact('doc', update, 2);
      expect((await own.updates.read('doc')).updates).toEqual([]);
      expect(own.updates.inline.append('doc', update)).toBe(3);
      expect(await own.updates.read('doc')).toMatchObject({ lastSeq: 3 });
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the database file', () => {
  it('[DUR5] commits an append to the write-ahead log before it returns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tandem-wal-'));
    const store = openSqliteStore(dir);
    try {
      const ydoc = new Y.Doc();
      docParts(ydoc).content.insert(0, [new Y.XmlElement('paragraph')]);
      store.updates.inline.append('wal-doc', Y.encodeStateAsUpdate(ydoc));
      const reader = new Database(join(dir, 'tandem.sqlite'), { readonly: true });
      try {
        expect(reader.pragma('journal_mode', { simple: true })).toBe('wal');
        // A second handle sees the append: it is committed, in the WAL file, not in a buffer of ours.
        expect(reader.prepare('SELECT count(*) AS n FROM update_log WHERE name = ?').get('wal-doc')).toEqual({ n: 1 });
      } finally {
        reader.close();
      }
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('schema versions', () => {
  it('[DUR4] refuses a database of a newer schema than it knows', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tandem-newer-'));
    try {
      const newer = new Database(join(dir, 'tandem.sqlite'));
      newer.pragma('user_version = 99');
      newer.close();
      expect(() => openSqliteStore(dir)).toThrow(/schema version 99/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
