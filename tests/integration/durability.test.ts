import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import Database from 'better-sqlite3';
import { readBlocks } from '../../shared/model/doc-content.ts';
import { docName, docParts } from '../../shared/model/doc-layout.ts';
import { readAnnotations } from '../../shared/notes/annotations.ts';
import { buildInitialState } from '../../server/docs/create-doc.ts';
import { addAnnotation } from '../helpers/notes.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { connectPeer, waitFor, type Peer } from '../helpers/peer.ts';
import { docOnDisk } from '../helpers/sqlite-on-disk.ts';
import { CountingWriter, keepWriting } from '../helpers/counting-writer.ts';
import { agentApi, blocksOf, markdownOf, replaceOp, sentRun } from '../helpers/runs.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { postgresSchemas } from '../helpers/pg-schema.ts';
import { loggedCount } from '../helpers/stored-rows.ts';

/*
 * The server runs on the backend of the suite (PostgreSQL with TANDEM_TEST_STORE=postgres, as
 * tests/helpers/server.ts does), except where a test is about SQLite itself (`start('sqlite')`):
 * its file read at the acknowledgement (DUR1; on PostgreSQL: async-persistence.test.ts) and the
 * upgrade of a data dir written before the update log (DUR4).
 */
const suiteStore = process.env.TANDEM_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
const postgres = postgresSchemas();
let dataDir: string | undefined;
let databaseUrl: string | null = null;
let server: ServerProcess | undefined;
const peers: Peer[] = [];

beforeAll(async () => {
  if (suiteStore === 'postgres') await postgres.setUp();
});
afterAll(() => postgres.tearDown());
afterEach(async () => {
  for (const peer of peers.splice(0)) peer.destroy();
  await server?.kill();
  server = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
  databaseUrl = null;
});

/** Starts a server process on the test's data dir, and on its PostgreSQL database when the store is `postgres`. */
async function start(store: 'sqlite' | 'postgres' = suiteStore): Promise<ServerProcess> {
  dataDir ??= mkdtempSync(join(tmpdir(), 'tandem-durability-'));
  if (store === 'postgres') databaseUrl ??= await postgres.fresh();
  server = await startServerProcess(dataDir!, databaseUrl === null ? {} : { DATABASE_URL: databaseUrl });
  return server;
}

/** Kills the server with SIGKILL and starts a new process on the same data dir (and database). */
async function crashAndRestart(): Promise<ServerProcess> {
  await server!.kill();
  return start(databaseUrl === null ? 'sqlite' : 'postgres');
}

function peer(name: string, token: string): Peer {
  const connected = connectPeer({ wsUrl: server!.wsUrl, name, token });
  peers.push(connected);
  return connected;
}

/** The server is killed once every writer has `each` acknowledged changes; resolves once every writer saw its socket close. */
async function killMidStream(writers: CountingWriter[], each: number, write: (writer: CountingWriter, index: number, n: number) => void): Promise<void> {
  let stopped = false;
  const writing = writers.map((writer, index) => keepWriting(writer, () => stopped, (n) => write(writer, index, n)));
  await waitFor(() => writers.every((writer) => writer.acknowledged >= each), 60_000);
  const killed = server!.kill();
  stopped = true;
  await killed;
  await Promise.all(writing);
  await waitFor(() => writers.every((writer) => writer.closed), 10_000);
}

const textOf = (ydoc: Y.Doc) => readBlocks(ydoc).map((block) => block.markdown).join('\n');

/** What the database file holds for `name` right now, read through a handle of its own as a restarted server would. */
const onDisk = (name: string): Y.Doc => docOnDisk(dataDir!, name);

// Each test starts (and kills) server processes: more time than an in-process test on a loaded machine.
describe('durability of acknowledged updates', { timeout: 90_000 }, () => {
  it('[DUR1] has each update on disk when its acknowledgement reaches the client', async () => {
    await start('sqlite');
    const id = await server!.createDoc('Acked', 'start');
    const writer = new CountingWriter(peer(id, server!.token('editor')));
    await writer.ready();
    const missingAtAck: string[] = [];
    // Runs in the turn in which the provider takes the acknowledgement in, so the file is read
    // as it was when the server sent it (give or take what the server did since).
    writer.peer.provider.on('unsyncedChanges', ({ number }: { number: number }) => {
      if (number !== 0 || writer.closed) return;
      const expected = writer.sent[writer.sent.length - 1];
      if (!textOf(onDisk(id)).includes(expected)) missingAtAck.push(expected);
    });
    for (let n = 0; n < 20; n++) {
      writer.change(`.t${n}.`, () => appendToBlock(writer.peer.ydoc, 0, `.t${n}.`));
      await waitFor(() => writer.acknowledged === n + 1, 5000, 1);
    }
    expect(missingAtAck).toEqual([]);
  });

  it('[DUR1] keeps every edit the server acknowledged from 10 concurrent writers when its process is killed', async () => {
    await start();
    const id = await server!.createDoc('Crash', 'zero\n\none\n\ntwo\n\nthree\n\nfour');
    const writers = Array.from({ length: 10 }, () => new CountingWriter(peer(id, server!.token('editor'))));
    await Promise.all(writers.map((writer) => writer.ready()));

    await killMidStream(writers, 40, (writer, index, n) => {
      const token = `.w${index}t${n}.`;
      writer.change(token, () => appendToBlock(writer.peer.ydoc, index % 5, token));
    });
    const acknowledged = writers.flatMap((writer) => writer.acknowledgedLabels);
    expect(acknowledged.length).toBeGreaterThanOrEqual(400);
    for (const old of peers.splice(0)) old.destroy();

    await crashAndRestart();
    // First from the store without loading the document into Hocuspocus, then through a load.
    const stored = (await blocksOf(server!, id)).map((block) => block.markdown).join('\n');
    expect(acknowledged.filter((token) => !stored.includes(token))).toEqual([]);
    const reader = peer(id, server!.token('viewer'));
    await reader.synced;
    expect(acknowledged.filter((token) => !textOf(reader.ydoc).includes(token))).toEqual([]);
  });

  it('[DUR1] keeps every note the server acknowledged from concurrent writers when its process is killed', async () => {
    await start();
    const id = await server!.createDoc('Notes crash', 'text');
    const writers = Array.from({ length: 4 }, (_, index) => {
      const principal = { sub: `noter-${index}`, name: `Noter ${index}` };
      return new CountingWriter(peer(docName(id, 'notes'), server!.token('editor', principal)));
    });
    await Promise.all(writers.map((writer) => writer.ready()));

    await killMidStream(writers, 15, (writer, index, n) => {
      const noteId = `n${index}x${n}`;
      writer.change(noteId, () => addAnnotation(writer.peer.ydoc, { id: `noter-${index}`, name: `Noter ${index}` }, { id: noteId, text: `note ${n}` }));
    });
    const acknowledged = writers.flatMap((writer) => writer.acknowledgedLabels);
    expect(acknowledged.length).toBeGreaterThanOrEqual(60);
    for (const old of peers.splice(0)) old.destroy();

    await crashAndRestart();
    const reader = peer(docName(id, 'notes'), server!.token('viewer'));
    await reader.synced;
    const ids = new Set(readAnnotations(reader.ydoc).annotations.map((annotation) => annotation.id));
    expect(acknowledged.filter((noteId) => !ids.has(noteId))).toEqual([]);
  });

  it('[DUR2] keeps a change the applier made once the ops route has answered, when the process is killed right after', async () => {
    await start();
    const { docId, runId, blocks, instructionIds } = await sentRun(server!, 'alpha\n\nbeta', ['uppercase']);
    const agent = agentApi(server!, server!.token('agent', { sub: 'crash-agent', name: 'Crash agent' }));
    expect((await agent.claim(runId)).status).toBe(200);
    const applied = await agent.ops(runId, 'k1', [replaceOp(blocks[0], 'ALPHA', instructionIds[0])]);
    expect(applied.status).toBe(200);

    const restarted = await crashAndRestart();
    expect(await markdownOf(restarted, docId)).toBe('ALPHA\n\nbeta');
  });
});

describe('compaction', { timeout: 90_000 }, () => {
  it('[DUR3] empties the log when the server stops cleanly and loads exactly the same state after a restart, logging none of it', async () => {
    await start();
    const id = await server!.createDoc('Compacted', 'one\n\ntwo');
    const writer = peer(id, server!.token('editor'));
    await writer.synced;
    for (let n = 0; n < 50; n++) appendToBlock(writer.ydoc, n % 2, ` ${n}`);
    await waitFor(() => writer.provider.unsyncedChanges === 0);
    const before = { vector: Y.encodeStateVector(writer.ydoc), content: docParts(writer.ydoc).content.toJSON() };
    writer.destroy();

    await server!.stop();
    expect(await loggedCount({ dataDir: dataDir!, databaseUrl })).toBe(0);

    await start();
    const reader = peer(id, server!.token('viewer'));
    await reader.synced;
    expect(Y.encodeStateVector(reader.ydoc)).toEqual(before.vector);
    expect(docParts(reader.ydoc).content.toJSON()).toEqual(before.content);
    // Loading applied the stored state without logging it again.
    expect(await loggedCount({ dataDir: dataDir!, databaseUrl }, id)).toBe(0);
  });
});

describe('schema migration', { timeout: 90_000 }, () => {
  it('[DUR4] upgrades a data dir written before the update log and keeps its documents and new edits', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tandem-durability-'));
    const old = new Database(join(dataDir!, 'tandem.sqlite'));
    old.exec(`
      CREATE TABLE docs (id TEXT PRIMARY KEY, title TEXT NOT NULL, kind TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
      CREATE TABLE documents (name TEXT PRIMARY KEY, data BLOB NOT NULL, updated_at INTEGER NOT NULL);
    `);
    old.prepare("INSERT INTO docs VALUES ('olddoc', 'Old', 'text', 1, 1)").run();
    const state = buildInitialState({ kind: 'text', title: 'Old', markdown: 'kept from before' });
    old.prepare("INSERT INTO documents VALUES ('olddoc', ?, 1)").run(Buffer.from(state));
    old.close();

    await start('sqlite');
    const writer = new CountingWriter(peer('olddoc', server!.token('editor')));
    await writer.ready();
    expect(textOf(writer.peer.ydoc)).toBe('kept from before');
    writer.change('edit', () => appendToBlock(writer.peer.ydoc, 0, ' and after'));
    await waitFor(() => writer.acknowledged === 1);
    for (const old of peers.splice(0)) old.destroy();

    await crashAndRestart();
    const reader = peer('olddoc', server!.token('viewer'));
    await reader.synced;
    expect(textOf(reader.ydoc)).toBe('kept from before and after');
    await server!.stop();
    const upgraded = new Database(join(dataDir!, 'tandem.sqlite'), { readonly: true });
    expect(upgraded.pragma('user_version', { simple: true })).toBe(7);
    // Step 2: the table of what agents tell of their work on runs (MODEL8).
    expect(upgraded.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'run_activity'").get()).toEqual({ name: 'run_activity' });
    // Step 3: the trash and the search index (CAT2, CAT3); the document made before it is indexed at start.
    expect(upgraded.prepare("SELECT deleted_at FROM docs WHERE id = 'olddoc'").get()).toEqual({ deleted_at: null });
    expect(upgraded.prepare("SELECT doc_id FROM doc_index WHERE doc_id = 'olddoc'").get()).toEqual({ doc_id: 'olddoc' });
    // Step 4: the images uploaded into documents (IMG3).
    expect(upgraded.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'assets'").get()).toEqual({ name: 'assets' });
    // Step 5: invites and the people who joined by them (INV1–INV6).
    expect(upgraded.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('invites', 'doc_people')").get()).toEqual({ n: 2 });
    // Step 6: who wrote each client id of a text (WHO2): the edit made after the upgrade is claimed.
    expect(upgraded.prepare("SELECT count(*) AS n FROM text_authors WHERE doc_id = 'olddoc'").get()).toEqual({ n: 1 });
    // Step 7: the versions of each document (HIST1).
    expect(upgraded.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'doc_versions'").get()).toEqual({ name: 'doc_versions' });
    upgraded.close();
  });
});
