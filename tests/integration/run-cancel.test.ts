import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../server/store/sqlite-store.ts';
import { agentApi, getRun, markdownOf, replaceOp, sentRun, waitForState } from '../helpers/runs.ts';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import { startTestModelAgent } from '../helpers/model-agent.ts';
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

describe('a SQLite database made before runs could be cancelled', () => {
  it('[RUN6] [DUR4] is upgraded at start: its runs are kept and can be cancelled', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tandem-cancel-'));
    try {
      const ed = { id: 'ed', name: 'Ed' };
      let store = openSqliteStore(dataDir);
      await store.createDoc({ id: 'd1', title: 'One', kind: 'text', createdAt: 1, updatedAt: 1 }, new Map());
      const items = [{ instructionId: 'i1', blockId: 'b1', instruction: 'uppercase', quote: 'a' }];
      await store.runs.createRun({ id: 'r1', docId: 'd1', createdBy: ed, createdAt: 1, contextMarkdown: 'a', items });
      await store.close();
      // The runs table as an earlier version made it: its CHECK does not know `cancelled`.
      const db = new Database(join(dataDir, 'tandem.sqlite'));
      const { sql } = db.prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'runs'").get()!;
      db.pragma('foreign_keys = OFF');
      db.pragma('legacy_alter_table = ON');
      db.exec('ALTER TABLE runs RENAME TO runs_before');
      db.exec(sql.replace(", 'cancelled')", ')'));
      db.exec('INSERT INTO runs SELECT * FROM runs_before');
      db.exec('DROP TABLE runs_before');
      db.close();

      store = openSqliteStore(dataDir);
      try {
        expect(await store.runs.cancelRun('r1', 5, ed)).toBe(true);
        expect(await store.runs.getRun('r1')).toMatchObject({ state: 'cancelled', items: [{ instructionId: 'i1', outcome: 'pending' }] });
        const check = new Database(join(dataDir, 'tandem.sqlite'), { readonly: true });
        expect(check.pragma('foreign_key_check')).toEqual([]);
        expect(check.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' AND name LIKE 'runs_%'").all().map((row) => row.name).sort()).toEqual([
          'runs_by_doc',
          'runs_by_state',
          'runs_one_outstanding',
        ]);
        check.close();
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the model agent and a cancelled run', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.dispose());

  it('[RUN6] [MODEL4] stops working on a run cancelled while the model thinks, without failing it, and takes the next run', async () => {
    const run = await sentRun(server, markdown, ['Make it louder']);
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const agent = await startTestModelAgent(server, [
      async () => {
        await released;
        return { text: 'Made it louder.' };
      },
      { text: 'Nothing to change.' },
    ]);
    try {
      await waitFor(() => agent.model.requests.length === 1, 10_000);
      expect((await server.api(`/api/runs/${run.runId}/cancel`, { method: 'POST' })).body).toEqual({ state: 'cancelled' });
      release();
      await waitFor(() => agent.messages.some((message) => message.startsWith(`run ${run.runId} left:`)), 10_000);
      expect(agent.messages.filter((message) => message.includes('failed'))).toEqual([]);
      expect(await getRun(server, run.runId)).toMatchObject({ state: 'cancelled', error: null, summary: null });

      const again = await server.api(`/api/docs/${run.docId}/runs`, { method: 'POST' });
      expect(again.status).toBe(201);
      expect(await waitForState(server, again.body.runId, 'review', 10_000)).toMatchObject({ summary: 'Nothing to change.' });
    } finally {
      release();
      await agent.stop();
    }
  });
});
