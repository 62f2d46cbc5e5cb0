import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { docName, notesParts } from '../../shared/model/doc-layout.ts';
import { readAnnotation } from '../../shared/notes/annotations.ts';
import { readBlocks } from '../../shared/model/doc-content.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { connectPeer, roundTrip, waitFor, type Peer } from '../helpers/peer.ts';
import { recordIncoming } from '../helpers/frames.ts';
import { CountingWriter, keepWriting } from '../helpers/counting-writer.ts';
import { agentApi, blocksOf, createDoc, instruct, markdownOf, replaceOp, sentRun } from '../helpers/runs.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { postgresSchemas } from '../helpers/pg-schema.ts';
import { logPrefixes } from '../helpers/log-prefixes.ts';

/*
 * SCALE2: DUR1 and DUR2 on PostgreSQL, whose appends are asynchronous. The server runs in its
 * own process with DATABASE_URL and is killed with SIGKILL; a new process on the same database
 * must hold everything the first acknowledged.
 */

const postgres = postgresSchemas();
let dataDir: string;
let databaseUrl: string;
let server: ServerProcess | undefined;
const peers: Peer[] = [];

beforeAll(() => postgres.setUp());
afterAll(() => postgres.tearDown());
afterEach(async () => {
  for (const peer of peers.splice(0)) peer.destroy();
  await server?.kill();
  server = undefined;
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<ServerProcess> {
  server = await startServerProcess(dataDir, { DATABASE_URL: databaseUrl });
  return server;
}

async function fresh(): Promise<ServerProcess> {
  dataDir = mkdtempSync(join(tmpdir(), 'tandem-pg-durability-'));
  databaseUrl = await postgres.fresh();
  return start();
}

function peer(name: string, token: string): Peer {
  const connected = connectPeer({ wsUrl: server!.wsUrl, name, token });
  peers.push(connected);
  return connected;
}

const textOf = (ydoc: Y.Doc) => readBlocks(ydoc).map((block) => block.markdown).join('\n');

/** An instruction as a replica holds it: `state runId`. */
function stateOf(ydoc: Y.Doc, id: string): string {
  const read = readAnnotation(ydoc, id);
  return read.ok && read.annotation.kind === 'instruction' ? `${read.annotation.state} ${read.annotation.runId}` : 'unreadable';
}

/** Every state a crash could leave of the Hocuspocus document `name` in the database (see log-prefixes.ts). */
async function storedPrefixes(name: string): Promise<Y.Doc[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const state = await client.query<{ data: Buffer }>('SELECT data FROM documents WHERE name = $1', [name]);
    const log = await client.query<{ data: Buffer }>('SELECT data FROM update_log WHERE name = $1 ORDER BY seq', [name]);
    return logPrefixes(state.rows[0]?.data ?? null, log.rows.map((row) => row.data));
  } finally {
    await client.end();
  }
}

describe('durability on PostgreSQL', { timeout: 90_000 }, () => {
  it('[SCALE2] keeps every edit the server acknowledged from 10 concurrent writers when its process is killed', async () => {
    await fresh();
    const id = await server!.createDoc('Crash', 'zero\n\none\n\ntwo\n\nthree\n\nfour');
    const writers = Array.from({ length: 10 }, () => new CountingWriter(peer(id, server!.token('editor'))));
    await Promise.all(writers.map((writer) => writer.ready()));

    let stopped = false;
    const writing = writers.map((writer, index) =>
      keepWriting(writer, () => stopped, (n) => {
        const token = `.w${index}t${n}.`;
        writer.change(token, () => appendToBlock(writer.peer.ydoc, index % 5, token));
      }),
    );
    await waitFor(() => writers.every((writer) => writer.acknowledged >= 40), 60_000);
    const killed = server!.kill();
    stopped = true;
    await killed;
    await Promise.all(writing);
    await waitFor(() => writers.every((writer) => writer.closed), 10_000);
    const acknowledged = writers.flatMap((writer) => writer.acknowledgedLabels);
    expect(acknowledged.length).toBeGreaterThanOrEqual(400);
    for (const old of peers.splice(0)) old.destroy();

    await start();
    const stored = (await blocksOf(server!, id)).map((block) => block.markdown).join('\n');
    expect(acknowledged.filter((token) => !stored.includes(token))).toEqual([]);
    const reader = peer(id, server!.token('viewer'));
    await reader.synced;
    expect(acknowledged.filter((token) => !textOf(reader.ydoc).includes(token))).toEqual([]);
  });

  it('[SCALE2] [DUR3] [DUR6] sends a document loaded from the store to its first peer once, and a fresh peer after a change that change', async () => {
    await fresh();
    const paragraphs = Array.from({ length: 300 }, (_, i) => `Paragraph ${i} of a document large enough to tell apart from small messages.`);
    const id = await server!.createDoc('Loaded once', paragraphs.join('\n\n'));
    await server!.stop();
    await start();

    const reader = peer(id, server!.token('editor'));
    const frames = recordIncoming(reader);
    await reader.synced;
    await roundTrip(reader);
    expect(readBlocks(reader.ydoc)).toHaveLength(300);
    expect(frames.filter((frame) => frame.byteLength > 20_000)).toHaveLength(1);

    appendToBlock(reader.ydoc, 0, ' changed');
    await roundTrip(reader);
    const later = peer(id, server!.token('viewer'));
    await later.synced;
    expect(textOf(later.ydoc)).toBe(textOf(reader.ydoc));
    expect(textOf(later.ydoc)).toContain('changed');
  });

  it('[SCALE2] [NOTES13] logs a forged state of a sent instruction only with its write-back, so no crash can keep the forgery', async () => {
    await fresh();
    const doc = await createDoc(server!, 'first block\n\nsecond block');
    const instructionId = await instruct(server!, doc.id, doc.blocks[0].id, 'uppercase');
    const sent = await server!.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    expect(sent.status).toBe(201);
    const held = `sent ${sent.body.runId}`;
    // The forger's sets win every tie of client ids, as a replica's may.
    const forger = new Y.Doc();
    forger.clientID = 0xffffffff;
    const notes = connectPeer({ wsUrl: server!.wsUrl, name: docName(doc.id, 'notes'), token: server!.token('editor', { sub: 'ed', name: 'Ed' }), ydoc: forger });
    peers.push(notes);
    await notes.synced;
    await waitFor(() => stateOf(forger, instructionId) === held);

    const record = notesParts(forger).annotations.get(instructionId) as Y.Map<unknown>;
    forger.transact(() => (record.set('state', 'queued'), record.set('runId', null)));
    await waitFor(() => notes.provider.unsyncedChanges === 0 && stateOf(forger, instructionId) === held, 10_000);

    const prefixes = await storedPrefixes(docName(doc.id, 'notes'));
    expect(prefixes.length).toBeGreaterThan(0);
    expect(prefixes.map((prefix) => stateOf(prefix, instructionId))).toEqual(prefixes.map(() => held));

    await server!.kill();
    const restarted = await start();
    const viewer = connectPeer({ wsUrl: restarted.wsUrl, name: docName(doc.id, 'notes'), token: restarted.token('viewer') });
    peers.push(viewer);
    await viewer.synced;
    expect(stateOf(viewer.ydoc, instructionId)).toBe(held);
  });

  it('[SCALE2] keeps a change the applier made once the ops route has answered, when the process is killed right after', async () => {
    await fresh();
    const { docId, runId, blocks, instructionIds } = await sentRun(server!, 'alpha\n\nbeta', ['uppercase']);
    const agent = agentApi(server!, server!.token('agent', { sub: 'crash-agent', name: 'Crash agent' }));
    expect((await agent.claim(runId)).status).toBe(200);
    expect((await agent.ops(runId, 'k1', [replaceOp(blocks[0], 'ALPHA', instructionIds[0])])).status).toBe(200);
    await server!.kill();

    const restarted = await start();
    expect(await markdownOf(restarted, docId)).toBe('ALPHA\n\nbeta');
  });
});
