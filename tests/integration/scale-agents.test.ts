import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/peer.ts';
import { postgresSchemas } from '../helpers/pg-schema.ts';
import { agentApi, createDoc } from '../helpers/runs.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { useRedis, type Service } from '../helpers/services.ts';

/*
 * SCALE6: the agents list (RUN7) across two instances on one PostgreSQL database and one Redis.
 * An agent polls or works through instance A; people asking instance B see it. Both instances
 * run in this process on the real database and Redis, on one clock these tests move by hand.
 */

const postgres = postgresSchemas();
const clock = { ahead: 0, now: () => Date.now() + clock.ahead };
let redis: Service;
let dataDir: string;
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  await postgres.setUp();
  redis = await useRedis();
  dataDir = mkdtempSync(join(tmpdir(), 'tandem-scale-agents-'));
  const databaseUrl = await postgres.fresh();
  // A first, so that B finds the keys A made in the shared data directory.
  a = await startTestServer({ dataDir, databaseUrl, redisUrl: redis.url, leaseClock: clock.now });
  b = await startTestServer({ dataDir, databaseUrl, redisUrl: redis.url, leaseClock: clock.now });
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  rmSync(dataDir, { recursive: true, force: true });
  await postgres.tearDown();
  await redis.stop();
});

const agentsOn = async (server: TestServer, docId: string) =>
  (await server.api(`/api/docs/${docId}`)).body.agents as { name: string; model: string | null; lastSeen: string }[];

describe('the agents of a document across instances', () => {
  it('[RUN7] [SCALE6] lists on B an agent that polled A, with its model, and drops it 60 s after on both', async () => {
    const doc = await createDoc(a, 'alpha');
    const other = await createDoc(a, 'beta');
    expect(await agentsOn(b, doc.id)).toEqual([]);
    const before = clock.now();
    expect((await agentApi(a, a.token('agent', { sub: 'poller', name: 'Poller' })).queued('?state=queued&model=small-model')).status).toBe(200);
    expect((await agentApi(a, a.token('agent', { sub: 'elsewhere', name: 'Elsewhere', doc: other.id })).queued()).status).toBe(200);

    const [listed] = await agentsOn(b, doc.id);
    expect(listed).toMatchObject({ name: 'Poller', model: 'small-model' });
    expect(Date.parse(listed.lastSeen)).toBeGreaterThanOrEqual(before);
    expect((await b.api(`/api/docs/${doc.id}/agents`)).body).toEqual([listed]);
    expect((await agentsOn(b, other.id)).map((agent) => agent.name).sort()).toEqual(['Elsewhere', 'Poller']);

    clock.ahead += 59_000;
    expect((await agentsOn(b, doc.id)).map((agent) => agent.name)).toEqual(['Poller']);
    clock.ahead += 1_001;
    expect(await agentsOn(b, doc.id)).toEqual([]);
    expect(await agentsOn(a, doc.id)).toEqual([]);
  });

  it('[RUN7] [SCALE6] lists on B an agent while its long poll is held on A, and one whose heartbeats go to A', async () => {
    const doc = await createDoc(a, 'alpha');
    const waiter = agentApi(a, a.token('agent', { sub: 'waiter', name: 'Waiter' }));
    const answer = waiter.queued('?state=queued&wait=3');
    await waitFor(async () => (await agentsOn(b, doc.id)).length === 1);
    expect((await agentsOn(b, doc.id)).map((agent) => agent.name)).toEqual(['Waiter']);
    expect((await answer).status).toBe(200);
    clock.ahead += 60_001;
    expect(await agentsOn(b, doc.id)).toEqual([]);

    // A claim and its heartbeat through A: B lists the agent as of the heartbeat, not the claim.
    const block = doc.blocks[0];
    expect((await a.api(`/api/docs/${doc.id}/annotations`, { method: 'POST', body: { kind: 'instruction', blockId: block.id, text: 'uppercase' } })).status).toBe(201);
    const sent = await b.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    expect(sent.status).toBe(201);
    const worker = agentApi(a, a.token('agent', { sub: 'worker', name: 'Worker' }));
    expect((await worker.claim(sent.body.runId)).status).toBe(200);
    clock.ahead += 20_000;
    expect((await worker.heartbeat(sent.body.runId)).status).toBe(200);
    clock.ahead += 45_000;
    expect((await agentsOn(b, doc.id)).map((agent) => agent.name)).toEqual(['Worker']);
    clock.ahead += 15_001;
    expect(await agentsOn(b, doc.id)).toEqual([]);
  });
});
