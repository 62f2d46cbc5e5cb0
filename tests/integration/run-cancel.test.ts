import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentApi, getRun, markdownOf, replaceOp, sentRun, waitForState } from '../helpers/runs.ts';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import { waitFor } from '../helpers/peer.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { postgresSchemas } from '../helpers/pg-schema.ts';

/*
 * Cancel (shared/PROTOCOL.md RUN6): an editor withdraws a run that is queued or claimed; its
 * instructions are ready again, the agent that held the claim holds nothing, and the document
 * can be sent again. On both backends: the SQL guards come from the transition table.
 */

const postgres = postgresSchemas();
const backends = [
  { name: 'SQLite', databaseUrl: async () => undefined },
  { name: 'PostgreSQL', databaseUrl: async () => postgres.fresh() },
];
const markdown = 'alpha one\n\nbeta two';

describe.each(backends)('cancelling a run ($name)', (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    if (backend.name === 'PostgreSQL') await postgres.setUp();
    server = await startTestServer({ databaseUrl: await backend.databaseUrl() });
  });
  afterAll(async () => {
    await server?.dispose();
    if (backend.name === 'PostgreSQL') await postgres.tearDown();
  });

  const cancel = (runId: string, token?: string) => server.api(`/api/runs/${runId}/cancel`, { method: 'POST', token });
  const instructionStates = async (docId: string) =>
    ((await server.api(`/api/docs/${docId}`)).body.annotations as { kind: string; state: string; runId: string | null }[])
      .filter((annotation) => annotation.kind === 'instruction')
      .map((annotation) => [annotation.state, annotation.runId ?? null]);

  it('[RUN6] cancels a queued run: its instructions are ready again and the next Send works', async () => {
    const run = await sentRun(server, markdown, ['uppercase']);
    expect(await instructionStates(run.docId)).toEqual([['sent', run.runId]]);
    const cancelled = await cancel(run.runId);
    expect(cancelled).toMatchObject({ status: 200, body: { state: 'cancelled' } });
    expect(await getRun(server, run.runId)).toMatchObject({ state: 'cancelled', decidedBy: { name: 'Owner' } });
    expect(await instructionStates(run.docId)).toEqual([['queued', null]]);
    const queued = await agentApi(server, server.token('agent')).queued();
    expect(queued.body.map((entry: { runId: string }) => entry.runId)).not.toContain(run.runId);
    const again = await server.api(`/api/docs/${run.docId}/runs`, { method: 'POST' });
    expect(again.status).toBe(201);
    expect(again.body.items.map((item: { instructionId: string }) => item.instructionId)).toEqual(run.instructionIds);
  });

  it('[RUN6] [CLAIM2] cancels a claimed run: its changes are taken back and the agent gets NOT_CLAIMED on every call', async () => {
    const run = await sentRun(server, markdown, ['uppercase', 'delete']);
    const agent = agentApi(server, server.token('agent'));
    expect((await agent.claim(run.runId)).status).toBe(200);
    expect((await agent.ops(run.runId, 'k1', [replaceOp(run.blocks[0], 'ALPHA ONE', run.instructionIds[0])])).status).toBe(200);
    expect(await markdownOf(server, run.docId)).toBe('ALPHA ONE\n\nbeta two');

    expect((await cancel(run.runId)).body).toEqual({ state: 'cancelled' });
    expect(await markdownOf(server, run.docId)).toBe(markdown);
    expect(await getRun(server, run.runId)).toMatchObject({ state: 'cancelled', lease: null, changes: [] });
    expect(await instructionStates(run.docId)).toEqual([
      ['queued', null],
      ['queued', null],
    ]);
    for (const response of [
      await agent.heartbeat(run.runId),
      await agent.ops(run.runId, 'k2', [replaceOp(run.blocks[1], 'BETA', run.instructionIds[0])]),
      await agent.complete(run.runId),
      await agent.fail(run.runId, 'gave up'),
    ]) {
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe('NOT_CLAIMED');
    }
    expect(await markdownOf(server, run.docId)).toBe(markdown);
    expect((await server.api(`/api/docs/${run.docId}/runs`, { method: 'POST' })).status).toBe(201);
  });

  it('[RUN6] refuses to cancel a run in review, decided or cancelled (NOT_CANCELLABLE), and anyone but an editor', async () => {
    const run = await sentRun(server, markdown, ['uppercase']);
    expect((await cancel(run.runId, server.token('commenter'))).status).toBe(403);
    expect((await cancel(run.runId, server.token('agent'))).status).toBe(403);
    const agent = agentApi(server, server.token('agent'));
    await agent.claim(run.runId);
    expect((await agent.complete(run.runId)).status).toBe(200);
    const inReview = await cancel(run.runId);
    expect(inReview.status).toBe(409);
    expect(inReview.body.error.code).toBe('NOT_CANCELLABLE');
    expect((await server.api(`/api/runs/${run.runId}/accept`, { method: 'POST' })).status).toBe(200);
    expect((await cancel(run.runId)).body.error.code).toBe('NOT_CANCELLABLE');

    const other = await sentRun(server, markdown, ['lowercase']);
    expect((await cancel(other.runId)).status).toBe(200);
    const twice = await cancel(other.runId);
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('NOT_CANCELLABLE');
    expect((await cancel('nosuchrun00000')).status).toBe(404);
  });
});

describe('the reference agent and a cancelled run', () => {
  const mixed = 'alpha one\n\nBETA two';
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.dispose());

  it('[RUN6] stops working on a run cancelled under it, without failing it, and takes the next run', async () => {
    const run = await sentRun(server, mixed, ['uppercase', 'lowercase']);
    let reachSecond = () => {};
    const atSecond = new Promise<void>((resolve) => (reachSecond = resolve));
    let goOn = () => {};
    const released = new Promise<void>((resolve) => (goOn = resolve));
    const agent = startTestReferenceAgent(server, {
      presence: false,
      beforeItem: async (index, claimed) => {
        if (claimed.runId !== run.runId || index !== 1) return;
        reachSecond();
        await released;
      },
    });
    try {
      await atSecond;
      expect((await server.api(`/api/runs/${run.runId}/cancel`, { method: 'POST' })).body).toEqual({ state: 'cancelled' });
      goOn();
      await waitFor(() => agent.messages.some((message) => message.startsWith(`run ${run.runId} left:`)));
      expect(agent.messages.filter((message) => message.includes('failed'))).toEqual([]);
      expect(await getRun(server, run.runId)).toMatchObject({ state: 'cancelled', error: null });
      expect(await markdownOf(server, run.docId)).toBe(mixed);

      const again = await server.api(`/api/docs/${run.docId}/runs`, { method: 'POST' });
      expect(again.status).toBe(201);
      const next = await waitForState(server, again.body.runId, 'review', 10_000);
      expect(next.items.map((item) => item.outcome)).toEqual(['changed', 'changed']);
    } finally {
      goOn();
      await agent.stop();
    }
  });
});
