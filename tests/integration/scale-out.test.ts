import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { readBlocks } from '../../shared/model/doc-content.ts';
import { docName, runsParts } from '../../shared/model/doc-layout.ts';
import { openPostgresStore } from '../../server/store/pg-store.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { connectPeer, waitFor, type Peer } from '../helpers/peer.ts';
import { CountingWriter, keepWriting } from '../helpers/counting-writer.ts';
import { agentApi, createDoc, instruct, sentRun } from '../helpers/runs.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { postgresSchemas } from '../helpers/pg-schema.ts';
import { useRedis, type Service } from '../helpers/services.ts';

/*
 * Two Tandem instances on one PostgreSQL database and one Redis (SCALE1–SCALE4), each in its
 * own process, as two machines behind a load balancer would run them. They share the data
 * directory only for the signing keys, which every instance needs alike.
 */

const postgres = postgresSchemas();
let redis: Service;
let dataDir: string;
let a: ServerProcess;
let b: ServerProcess;
const peers: Peer[] = [];

beforeAll(async () => {
  await postgres.setUp();
  redis = await useRedis();
});
afterAll(async () => {
  await postgres.tearDown();
  await redis.stop();
});
afterEach(() => {
  for (const peer of peers.splice(0)) peer.destroy();
});

async function stopBoth(): Promise<void> {
  await Promise.all([a?.kill(), b?.kill()]);
  rmSync(dataDir, { recursive: true, force: true });
}

/** Instances A and B on a fresh database; A first, so that B finds the keys A made. */
async function startBoth(): Promise<void> {
  dataDir = mkdtempSync(join(tmpdir(), 'tandem-scale-'));
  const env = { DATABASE_URL: await postgres.fresh(), REDIS_URL: redis.url };
  a = await startServerProcess(dataDir, env);
  b = await startServerProcess(dataDir, env);
}

function peer(server: ServerProcess, name: string, token: string, ydoc?: Y.Doc): Peer {
  const connected = connectPeer({ wsUrl: server.wsUrl, name, token, ydoc });
  peers.push(connected);
  return connected;
}

const textOf = (ydoc: Y.Doc) => readBlocks(ydoc).map((block) => block.markdown).join('\n');

describe('two instances on one database and one Redis', { timeout: 90_000 }, () => {
  // One pair of instances for these tests; each works on documents of its own.
  beforeAll(startBoth);
  afterAll(stopBoth);

  it('[SCALE4] brings people on different instances to the same text and shows each to the other', async () => {
    const id = await a.createDoc('Shared', 'one\n\ntwo');
    const onA = peer(a, id, a.token('editor', { name: 'Ada' }));
    const onB = peer(b, id, b.token('editor', { name: 'Bo' }));
    await Promise.all([onA.synced, onB.synced]);

    appendToBlock(onA.ydoc, 0, ' from A');
    appendToBlock(onB.ydoc, 1, ' from B');
    await waitFor(() => textOf(onA.ydoc) === textOf(onB.ydoc) && textOf(onA.ydoc).includes('from A') && textOf(onA.ydoc).includes('from B'), 10_000);
    expect(textOf(onB.ydoc)).toBe('one from A\ntwo from B');

    onA.provider.setAwarenessField('user', { name: 'ignored', color: '#123456', status: 'reading' });
    await waitFor(() => [...onB.provider.awareness!.getStates().values()].some((state) => state.user?.status === 'reading'), 10_000);
    const seen = [...onB.provider.awareness!.getStates().values()].find((state) => state.user?.status === 'reading');
    // PresenceGuard on A rewrote the name from the token before Redis carried it to B.
    expect(seen?.user).toMatchObject({ name: 'Ada', color: '#123456' });

    // What each instance stored is the converged text: B reads it through the API.
    await waitFor(async () => (await b.api(`/api/docs/${id}/markdown`)).body === 'one from A\n\ntwo from B', 10_000);
  });

  it('[SCALE1] refuses on every instance a token that `tandem revoke` revoked in the database', async () => {
    const token = a.token('editor', { name: 'Leaver' });
    expect((await b.api('/api/docs', { token })).status).toBe(200);
    const { stdout } = await promisify(execFile)('npx', ['--offline', 'tandem', 'revoke', token], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: postgres.lastUrl },
    });
    expect(stdout).toMatch(/^Revoked token /);
    for (const server of [a, b]) expect((await server.api('/api/docs', { token })).body.error.code).toBe('TOKEN_REVOKED');
  });

  it('[SCALE3] makes one run of 8 simultaneous Sends spread over both instances', async () => {
    const doc = await createDoc(a, 'alpha\n\nbeta');
    await instruct(a, doc.id, doc.blocks[0].id, 'uppercase');
    const sends = await Promise.all(
      Array.from({ length: 8 }, (_, index) => (index % 2 === 0 ? a : b).api(`/api/docs/${doc.id}/runs`, { method: 'POST' })),
    );
    expect(sends.filter((sent) => sent.status === 201)).toHaveLength(1);
    expect(sends.filter((sent) => sent.status !== 201).map((sent) => sent.status)).toEqual(Array(7).fill(409));
    const store = await openPostgresStore(postgres.lastUrl);
    const runs = await store.runs.listRuns(doc.id);
    await store.close();
    expect(runs.map((run) => run.id)).toEqual([sends.find((sent) => sent.status === 201)!.body.runId]);
    expect((await b.api(`/api/runs/${runs[0].id}`)).body.state).toBe('queued');
  });

  it('[SCALE3] shows a run sent on one instance in the runs mirror of a person on the other', async () => {
    const doc = await createDoc(a, 'alpha');
    await instruct(a, doc.id, doc.blocks[0].id, 'uppercase');
    const watcher = peer(b, docName(doc.id, 'runs'), b.token('viewer'));
    await watcher.synced;
    const sent = await a.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    expect(sent.status).toBe(201);
    await waitFor(() => (runsParts(watcher.ydoc).runs.get(sent.body.runId) as { state?: string } | undefined)?.state === 'queued', 10_000);
  });

  it('[SCALE3] gives a run to exactly one of concurrent claims on both instances', async () => {
    const { runId } = await sentRun(a, 'alpha\n\nbeta', ['uppercase']);
    const claims = await Promise.all(
      Array.from({ length: 6 }, (_, index) => {
        const server = index % 2 === 0 ? a : b;
        return agentApi(server, server.token('agent', { sub: `bot-${index}`, name: `Bot ${index}` })).claim(runId);
      }),
    );
    expect(claims.filter((claim) => claim.status === 200)).toHaveLength(1);
    expect(claims.filter((claim) => claim.status === 409).map((claim) => claim.body.error.code)).toEqual(Array(5).fill('ALREADY_CLAIMED'));
  });

  it('[SCALE3] answers a long poll on one instance with a run sent on the other', async () => {
    const doc = await createDoc(a, 'alpha');
    await instruct(a, doc.id, doc.blocks[0].id, 'uppercase');
    // An agent of this document only: the runs the other tests leave queued are not its.
    const agent = agentApi(b, b.token('agent', { sub: 'waiting-bot', name: 'Waiting bot', doc: doc.id }));
    const poll = agent.queued('?state=queued&wait=30');
    const sent = await a.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    expect(sent.status).toBe(201);
    const answer = await poll;
    expect(answer.status).toBe(200);
    expect(answer.body.map((run: { runId: string }) => run.runId)).toEqual([sent.body.runId]);
  });

});

describe('two instances, one of which dies', { timeout: 90_000 }, () => {
  beforeAll(startBoth);
  afterAll(stopBoth);

  it('[SCALE4] loses no acknowledged edit when one instance is killed, its people reconnecting to the other', async () => {
    const id = await a.createDoc('Failover', 'zero\n\none\n\ntwo\n\nthree');
    const tokens = Array.from({ length: 6 }, (_, index) => a.token('editor', { sub: `writer-${index}`, name: `Writer ${index}` }));
    // Writers 0–3 on A, 4–5 on B.
    const writers = tokens.map((token, index) => new CountingWriter(peer(index < 4 ? a : b, id, token)));
    await Promise.all(writers.map((writer) => writer.ready()));
    const onA = writers.slice(0, 4);

    let stopped = false;
    const writing = writers.map((writer, index) =>
      keepWriting(writer, () => stopped, (n) => {
        const label = `.w${index}t${n}.`;
        writer.change(label, () => appendToBlock(writer.peer.ydoc, index % 4, label));
      }),
    );
    await waitFor(() => writers.every((writer) => writer.acknowledged >= 25), 60_000);
    await a.kill();
    await waitFor(() => onA.every((writer) => writer.closed), 10_000);
    stopped = true;
    await Promise.all(writing);
    const acknowledgedByA = onA.flatMap((writer) => writer.acknowledgedLabels);
    expect(acknowledgedByA.length).toBeGreaterThanOrEqual(100);

    // Before anyone reconnects: A's acknowledged edits are in the database.
    const store = await openPostgresStore(postgres.lastUrl);
    const stored = new Y.Doc();
    Y.applyUpdate(stored, (await store.loadState(id))!);
    await store.close();
    expect(acknowledgedByA.filter((label) => !textOf(stored).includes(label))).toEqual([]);

    // A's people reconnect to B with the replicas they hold, as a load balancer would send them.
    const moved = onA.map((writer, index) => {
      writer.peer.destroy();
      return peer(b, id, tokens[index], writer.peer.ydoc);
    });
    await Promise.all(moved.map((moved) => moved.synced));
    await waitFor(() => moved.every((moved) => moved.provider.unsyncedChanges === 0), 10_000);
    const everything = writers.flatMap((writer) => writer.sent);
    const reader = peer(b, id, b.token('viewer'));
    await reader.synced;
    await waitFor(() => everything.every((label) => textOf(reader.ydoc).includes(label)), 10_000);
  });
});
