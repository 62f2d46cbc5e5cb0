import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { openPostgresStore } from '../../server/store/pg-store.ts';
import type { Store } from '../../server/store/store.ts';
import { usePostgres, type Service } from '../helpers/services.ts';
import { postgresUrlIn } from '../helpers/store-backends.ts';

/*
 * What the PostgreSQL store adds to the store tests that run on both backends: its migrations,
 * an update log several instances share, and run changes told across instances.
 */

let service: Service;
let admin: pg.Client;
let url: string;
let schema: string;
const opened: Store[] = [];

async function open(): Promise<Store> {
  const store = await openPostgresStore(url);
  opened.push(store);
  return store;
}

/** A text update from a peer of its own, on top of `base`. */
function edit(base: Uint8Array | null, text: string): { update: Uint8Array; doc: Y.Doc } {
  const doc = new Y.Doc();
  if (base) Y.applyUpdate(doc, base);
  const before = Y.encodeStateVector(doc);
  doc.getText('t').insert(0, text);
  return { update: Y.encodeStateAsUpdate(doc, before), doc };
}

function textOf(update: Uint8Array | null): string {
  const doc = new Y.Doc();
  if (update) Y.applyUpdate(doc, update);
  return doc.getText('t').toString();
}

beforeAll(async () => {
  service = await usePostgres();
  admin = new pg.Client({ connectionString: service.url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await service.stop();
});
beforeEach(async () => {
  schema = `t_${randomUUID().replaceAll('-', '')}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  url = postgresUrlIn(service.url, schema);
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
});

describe('the PostgreSQL store', () => {
  it('[SCALE1] migrates once when instances start together, and refuses a newer schema', async () => {
    await Promise.all([open(), open(), open()]);
    const { rows } = await admin.query(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
    expect(rows.map((row) => row.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    await admin.query(`INSERT INTO ${schema}.schema_migrations (version) VALUES (99)`);
    await expect(openPostgresStore(url)).rejects.toThrow(/schema version 99, newer than this server's 13/);
  });

  it('[SCALE1] keeps the catalogue, a document state, revocations and the audit log', async () => {
    const store = await open();
    const state = edit(null, 'hello').update;
    await store.createDoc({ id: 'd1', title: 'One', kind: 'text', createdAt: 10, updatedAt: 10 }, new Map([['d1', state]]));
    await store.createDoc({ id: 'd2', title: 'Two', kind: 'page', createdAt: 20, updatedAt: 20 }, new Map());
    await store.updateDoc('d1', { title: 'Uno', updatedAt: 30 });
    expect((await store.listDocs()).map((doc) => [doc.id, doc.title, doc.kind])).toEqual([
      ['d1', 'Uno', 'text'],
      ['d2', 'Two', 'page'],
    ]);
    expect(textOf(await store.loadState('d1'))).toBe('hello');
    expect(await store.revocations.revoke('j1', 5)).toBe(true);
    expect(await store.revocations.revoke('j1', 6)).toBe(false);
    expect(await store.revocations.isRevoked('j1')).toBe(true);
    expect((await store.revocations.revokedSince(0)).ids).toEqual(['j1']);
    await store.audit.record({ action: 'doc.created', docId: 'd1', actor: { id: 'o', name: 'O', role: 'editor' }, at: 7 });
    await store.audit.record({ action: 'token.revoked', docId: null, actor: { id: 'o', name: 'O', role: 'editor' }, tokenId: 'j1', at: 8 });
    expect((await store.audit.list('d1', { limit: 10 })).map((entry) => entry.action)).toEqual(['token.revoked', 'doc.created']);
    expect(await store.audit.list('d2', { limit: 10 })).toHaveLength(1);
    // AUDIT3: a read is written once per token, document and hour.
    const read = { action: 'doc.read', docId: 'd1', actor: { id: 'v', name: 'V', role: 'viewer' }, tokenId: 'j2' } as const;
    expect(await store.audit.recordUnlessSince({ ...read, at: 3_600_001 }, 3_600_000)).toBe(true);
    expect(await store.audit.recordUnlessSince({ ...read, at: 3_600_002 }, 3_600_000)).toBe(false);
    expect(await store.audit.recordUnlessSince({ ...read, tokenId: 'j3', at: 3_600_003 }, 3_600_000)).toBe(true);
    expect(await store.audit.recordUnlessSince({ ...read, at: 7_200_001 }, 7_200_000)).toBe(true);
  });

  it('[SCALE2] compacts a log two instances share without losing the entries of the other', async () => {
    const a = (await open()).updates;
    const b = (await open()).updates;
    const first = edit(null, 'a');
    const seqA = await a.append('doc', first.update);
    const seqB = await b.append('doc', edit(null, 'b').update);
    expect(seqB).toBeGreaterThan(seqA);
    // Instance A compacts with only its own state, through B's entry too.
    await a.compact('doc', Y.encodeStateAsUpdate(first.doc), seqB);
    const later = await b.append('doc', edit(null, 'c').update);
    const stored = await a.read('doc');
    expect(stored.updates).toHaveLength(1);
    expect(stored.lastSeq).toBe(later);
    expect([...textOf(stored.state)].sort()).toEqual(['a', 'b']);
  });

  it('[SCALE2] takes each item from the live state at compaction: what it collected stays out, what it kept stays in', async () => {
    const log = (await open()).updates;
    const secret = 'words deleted later '.repeat(50);
    const written = edit(null, `kept ${secret}`);
    const storedBytes = async (name: string) => Buffer.from((await log.read(name)).state!);
    await log.compact('collected', Y.encodeStateAsUpdate(written.doc), 0);
    expect((await storedBytes('collected')).includes(secret)).toBe(true);

    // A live document that collects deleted content, as Hocuspocus's do by default.
    const collecting = new Y.Doc();
    Y.applyUpdate(collecting, (await log.read('collected')).state!);
    collecting.getText('t').delete('kept '.length, secret.length);
    await log.compact('collected', Y.encodeStateAsUpdate(collecting), 0);
    expect(textOf((await log.read('collected')).state)).toBe('kept ');
    expect((await storedBytes('collected')).includes(secret)).toBe(false);

    // One that keeps it (a deletion an open run may take back), where the stored state has it collected.
    await log.compact('kept', Y.encodeStateAsUpdate(collecting), 0);
    expect((await storedBytes('kept')).includes(secret)).toBe(false);
    const keeping = new Y.Doc({ gc: false });
    Y.applyUpdate(keeping, Y.encodeStateAsUpdate(written.doc));
    keeping.getText('t').delete('kept '.length, secret.length);
    await log.compact('kept', Y.encodeStateAsUpdate(keeping), 0);
    expect(textOf((await log.read('kept')).state)).toBe('kept ');
    expect((await storedBytes('kept')).includes(secret)).toBe(true);
  });

  it('[SCALE3] tells each other instance which document had a run change, and not itself', async () => {
    const a = await open();
    const b = await open();
    await a.createDoc({ id: 'd1', title: 'One', kind: 'text', createdAt: 1, updatedAt: 1 }, new Map());
    const heardByB = new Promise<string>((resolve) => b.onRemoteRunChanged(resolve));
    const heardByA: string[] = [];
    a.onRemoteRunChanged((docId) => heardByA.push(docId));
    await a.runs.createRun({ id: 'r1', docId: 'd1', createdBy: { id: 'e', name: 'E' }, createdAt: 5, contextMarkdown: '', items: [] });
    expect(await heardByB).toBe('d1');
    // The barrier: B's claim reaches A, so A's own earlier notification would have arrived before it.
    const heardClaim = new Promise<string>((resolve) => a.onRemoteRunChanged(resolve));
    await b.runs.claimRun('r1', { id: 'bot', name: 'Bot' }, 6, 100);
    expect(await heardClaim).toBe('d1');
    expect(heardByA).toEqual(['d1']);
  });
});
