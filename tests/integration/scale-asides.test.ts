import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { docName } from '../../shared/model/doc-layout.ts';
import { readAsides } from '../../shared/protocol/aside-records.ts';
import type { AsideRecord } from '../../shared/wire/asides.ts';
import { ask, asideAgent, asideRecord } from '../helpers/asides.ts';
import { connectPeer, waitFor, type Peer } from '../helpers/peer.ts';
import { postgresSchemas } from '../helpers/pg-schema.ts';
import { agentApi, sentRun } from '../helpers/runs.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { useRedis, type Service } from '../helpers/services.ts';

/*
 * SCALE5: asides across two instances on one PostgreSQL database and one Redis. A load balancer
 * sends each request to any instance, so the person asking and the agent answering may each
 * reach a different one. Both instances run in this process, on the real database and Redis.
 */

const postgres = postgresSchemas();
let redis: Service;
let dataDir: string;
let databaseUrl: string;
let a: TestServer;
let b: TestServer;
const peers: Peer[] = [];

/** How long a question waits on instance A before it goes to the run as a steer. */
const timeoutOnA = 2_000;

beforeAll(async () => {
  await postgres.setUp();
  redis = await useRedis();
  dataDir = mkdtempSync(join(tmpdir(), 'tandem-scale-asides-'));
  databaseUrl = await postgres.fresh();
  // A first, so that B finds the keys A made in the shared data directory.
  // One long poll per agent on A: a second is refused while the first waits, which tells a test it waits (LIMIT6).
  a = await startTestServer({ dataDir, databaseUrl, redisUrl: redis.url, asideTimeoutMs: timeoutOnA, limits: { longPollsPerSubject: 1 } });
  b = await startTestServer({ dataDir, databaseUrl, redisUrl: redis.url, asideTimeoutMs: 60_000 });
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  rmSync(dataDir, { recursive: true, force: true });
  await postgres.tearDown();
  await redis.stop();
});
afterEach(() => {
  for (const peer of peers.splice(0)) peer.destroy();
});

/** A run sent on A and claimed by an agent whose requests go to `agentOn`. */
async function claimedRun(agentOn: TestServer) {
  const run = await sentRun(a, 'alpha\n\nbeta', ['Make it louder']);
  const token = agentOn.token('agent');
  expect((await agentApi(agentOn, token).claim(run.runId)).status).toBe(200);
  return { ...run, token, agent: { ...agentApi(agentOn, token), ...asideAgent(agentOn, token) } };
}

/** The asides a person on `server` sees in the document's runs mirror, once `until` holds. */
async function mirroredOn(server: TestServer, docId: string, until: (asides: AsideRecord[]) => boolean): Promise<AsideRecord[]> {
  const peer = connectPeer({ wsUrl: server.wsUrl, name: docName(docId, 'runs'), token: server.token('viewer') });
  peers.push(peer);
  await peer.synced;
  await waitFor(() => until(readAsides(peer.ydoc)), 10_000);
  return readAsides(peer.ydoc);
}

async function query<Row extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<Row[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<Row>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

async function boardRows(runId: string): Promise<number> {
  const [{ count }] = await query<{ count: number }>('SELECT count(*)::int AS count FROM asides WHERE run_id = $1', [runId]);
  return count;
}

describe('asides across two instances', { timeout: 60_000 }, () => {
  it('[SCALE5] [ASIDE5] hands a question asked on one instance to the agent polling the other, and its streamed answer back', async () => {
    const run = await claimedRun(b);
    const asked = ask(a, run.runId, a.token('commenter', { name: 'Cora' }), { text: 'What are you doing now?' });

    const polled = await run.agent.poll(run.runId, 10);
    expect(polled.status).toBe(200);
    expect(polled.body).toEqual([{ asideId: expect.any(String), kind: 'question', text: 'What are you doing now?', askedBy: { id: expect.any(String), name: 'Cora' } }]);
    const { asideId } = polled.body[0];
    // Handed out once, whichever instance the agent asks.
    expect((await asideAgent(a, run.token).poll(run.runId)).body).toEqual([]);
    expect((await run.agent.poll(run.runId)).body).toEqual([]);

    expect((await run.agent.answer(run.runId, asideId, { chunk: 'Working on ' })).body).toEqual({ open: true });
    const streaming = await mirroredOn(a, run.docId, (asides) => asides[0]?.answer === 'Working on ');
    expect(streaming[0]).toMatchObject({ asideId, route: null, done: false });

    expect((await run.agent.answer(run.runId, asideId, { chunk: 'item 1 of 1.', done: true, handoff: 'Shorten the intro' })).body).toEqual({ open: false });
    const answer = await asked;
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ route: 'side', answer: 'Working on item 1 of 1.', handoff: 'Shorten the intro' });
    const final = await mirroredOn(a, run.docId, (asides) => asides[0]?.done === true);
    expect(final[0]).toMatchObject({ asideId, route: 'side', answer: 'Working on item 1 of 1.', handoff: 'Shorten the intro', done: true });
    // A late answer, on either instance, changes nothing.
    expect((await run.agent.answer(run.runId, asideId, { answer: 'Something else', done: true })).body).toEqual({ open: false });
  });

  it('[SCALE5] [ASIDE4] wakes the agent’s long poll on one instance with a steer taken by the other', async () => {
    const run = await claimedRun(a);
    // The poll is waiting on A before the steer reaches B: a probe beside it is refused (a barrier, not a pause).
    let polling: ReturnType<typeof run.agent.poll>;
    for (;;) {
      let refused = false;
      polling = run.agent.poll(run.runId, 20);
      void polling.then((answer) => (refused = answer.status === 429));
      await waitFor(async () => refused || (await run.agent.poll(run.runId, 0.1)).status === 429, 10_000);
      if (!refused) break;
    }
    const steered = await ask(b, run.runId, b.token('editor', { name: 'Eda' }), { text: 'Keep it short.' });
    expect(steered.body).toEqual({ route: 'agent' });
    const polled = await polling;
    expect(polled.body).toEqual([{ asideId: expect.any(String), kind: 'steer', text: 'Keep it short.', askedBy: { id: expect.any(String), name: 'Eda' } }]);
  });

  it('[SCALE5] [ASIDE7] sends a question unanswered on one instance to the agent on the other as a steer, and says so', async () => {
    const run = await claimedRun(b);
    const asked = ask(a, run.runId, a.token('editor', { name: 'Eda' }), { text: 'Any news?' });
    const [{ asideId }] = (await run.agent.poll(run.runId, 10)).body;

    const answer = await asked;
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ route: 'agent', note: expect.stringContaining('did not answer within 2 s') });
    const steer = await run.agent.poll(run.runId, 10);
    expect(steer.body).toEqual([{ asideId: expect.any(String), kind: 'steer', text: 'Any news?', askedBy: { id: expect.any(String), name: 'Eda' } }]);
    expect((await run.agent.answer(run.runId, asideId, { answer: 'Too late', done: true })).body).toEqual({ open: false });
    const mirrored = await mirroredOn(b, run.docId, (asides) => asides.some((aside) => aside.asideId === asideId && aside.done));
    // The question says where it went; its fallback steer is the agent's only.
    expect(mirrored).toEqual([expect.objectContaining({ asideId, route: 'agent', done: true, answer: '', note: expect.stringContaining('went to the run as a steer') })]);
  });

  it('[SCALE5] [ASIDE8] ends a question waiting on one instance when the run is completed on the other, and forgets its asides', async () => {
    const run = await claimedRun(b);
    const asked = ask(a, run.runId, a.token('editor'), { text: 'Still there?' });
    expect((await run.agent.poll(run.runId, 10)).body).toHaveLength(1);
    expect(await boardRows(run.runId)).toBe(1);

    expect((await run.agent.complete(run.runId, { summary: 'Done.' })).status).toBe(200);
    const answer = await asked;
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('RUN_NOT_ACTIVE');
    await waitFor(async () => (await boardRows(run.runId)) === 0, 5_000);
  });

  it('[SCALE5] [ASIDE7] ends a question whose instance stopped before its timeout, when the agent next polls another', async () => {
    const run = await claimedRun(b);
    // As an instance that took a question, handed it to the agent and then died leaves it:
    // open, with nobody's timer on it, asked long before B's timeout.
    const orphan = asideRecord({
      asideId: 'orphan-question-1',
      runId: run.runId,
      text: 'Are you still there?',
      askedBy: { id: 'editor-gone', name: 'Gone' },
      askedAt: new Date(Date.now() - 10 * 60_000).toISOString(),
    });
    await query('INSERT INTO asides (aside_id, run_id, doc_id, record, mirrored, delivered, open_question) VALUES ($1, $2, $3, $4, TRUE, TRUE, TRUE)', [
      orphan.asideId,
      run.runId,
      run.docId,
      JSON.stringify(orphan),
    ]);

    const polled = await run.agent.poll(run.runId);
    expect(polled.body).toEqual([{ asideId: expect.any(String), kind: 'steer', text: 'Are you still there?', askedBy: { id: 'editor-gone', name: 'Gone' } }]);
    const [row] = await query<{ record: string; open_question: boolean }>('SELECT record, open_question FROM asides WHERE aside_id = $1', [orphan.asideId]);
    expect(row.open_question).toBe(false);
    expect(JSON.parse(row.record)).toMatchObject({ done: true, route: 'agent', note: expect.stringContaining('went to the run as a steer') });
    const mirrored = await mirroredOn(a, run.docId, (asides) => asides.some((aside) => aside.asideId === orphan.asideId));
    expect(mirrored).toEqual([expect.objectContaining({ asideId: orphan.asideId, done: true, route: 'agent' })]);
  });

  it('[SCALE5] [ASIDE3] counts a person’s open questions over both instances', async () => {
    const run = await claimedRun(a);
    const asker = a.token('editor', { sub: 'asker', name: 'Asker' });
    const waiting = [a, b, a, b].map((server, index) => ask(server, run.runId, asker, { text: `Question ${index}?` }));
    await waitFor(async () => (await boardRows(run.runId)) === 4, 5_000);
    for (const server of [a, b]) {
      const fifth = await ask(server, run.runId, asker, { text: 'One more?' });
      expect(fifth.status).toBe(429);
      expect(fifth.body.error.code).toBe('TOO_MANY_ASIDES');
    }
    // A steer still goes through, and so does another person's question.
    expect((await ask(b, run.runId, asker, { text: 'Carry on.' })).body).toEqual({ route: 'agent' });
    waiting.push(ask(b, run.runId, b.token('editor'), { text: 'And mine?' }));
    await waitFor(async () => (await boardRows(run.runId)) === 6, 5_000);
    expect((await run.agent.fail(run.runId, 'Stopping here')).status).toBe(200);
    for (const answer of await Promise.all(waiting)) expect(answer.body.error.code).toBe('RUN_NOT_ACTIVE');
  });
});
