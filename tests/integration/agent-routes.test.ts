import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import type { Role } from '../../shared/protocol/claims.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { readRunRecords } from '../../shared/protocol/run-record.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { afterHandled, connectPeer, roundTrip, waitFor, type Peer } from '../helpers/peer.ts';
import { agentApi, blocksOf, createDoc, getRun, heldPoll, instruct, markdownOf, replaceOp, sentRun } from '../helpers/runs.ts';
import type { TestServer } from '../helpers/server.ts';
import { startTestServer } from '../helpers/server.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * The agent routes (docs/api.md, "Agent routes"; shared/PROTOCOL.md QUEUE, CLAIM, OP) against a real
 * server: claims, leases, batches of ops and how a run ends, with the codes of every refusal.
 */

const server = useTestServer();

const markdown = 'alpha one\n\nbeta two\n\ngamma three';

function agent(extra: Parameters<TestServer['token']>[1] = {}) {
  return agentApi(server, server.token('agent', extra));
}

async function watch(docId: string): Promise<Peer> {
  const peer = connectPeer({ wsUrl: server.wsUrl, name: docId, token: server.token('viewer') });
  server.track(peer);
  await peer.synced;
  return peer;
}

describe('GET /api/agent/runs?state=queued', () => {
  it('[QUEUE1] lists queued runs with their items, oldest first, and leaves claimed ones out', async () => {
    const bot = agent();
    const first = await sentRun(server, markdown, ['uppercase']);
    const second = await sentRun(server, markdown, ['delete', 'lowercase']);
    const listed = (await bot.queued()).body as { runId: string }[];
    const mine = listed.filter((run) => [first.runId, second.runId].includes(run.runId));
    expect(mine).toEqual([
      {
        runId: first.runId,
        docId: first.docId,
        items: [{ instructionId: first.instructionIds[0], blockId: first.blocks[0].id, instruction: 'uppercase', quote: 'alpha one', currentText: 'alpha one', drifted: false, variantsWanted: 1 }],
        createdAt: expect.stringMatching(/^\d{4}-/),
      },
      expect.objectContaining({ runId: second.runId, items: [expect.objectContaining({ instruction: 'delete' }), expect.objectContaining({ instruction: 'lowercase' })] }),
    ]);
    expect((await bot.claim(first.runId)).status).toBe(200);
    expect(((await bot.queued()).body as { runId: string }[]).map((run) => run.runId)).not.toContain(first.runId);
    await bot.fail(first.runId, 'test over');
    await agent().claim(second.runId).then((response) => expect(response.status).toBe(200));
  });

  it('[QUEUE1] holds a long poll until a run is queued, and answers at once when one is', { timeout: 20_000 }, async () => {
    const own = await startTestServer({ limits: { longPollsPerSubject: 1 } });
    try {
      const doc = await createDoc(own, markdown);
      await instruct(own, doc.id, doc.blocks[0].id, 'uppercase');
      const bot = agentApi(own, own.token('agent', { doc: doc.id }));
      const poll = await heldPoll(bot, '?state=queued&wait=10');
      const sent = await own.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
      const answer = await poll.answer;
      expect(answer.status).toBe(200);
      expect(answer.body.map((run: { runId: string }) => run.runId)).toEqual([sent.body.runId]);
      // Answered without waiting: a poll held for its 30 s would outlast this test's timeout.
      expect((await bot.queued('?state=queued&wait=30')).body).toHaveLength(1);
    } finally {
      await own.dispose();
    }
  });

  it('answers an empty list when the wait passes with nothing queued', async () => {
    const doc = await createDoc(server, markdown);
    const started = Date.now();
    const answer = await agent({ doc: doc.id }).queued('?state=queued&wait=1');
    expect(answer).toMatchObject({ status: 200, body: [] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it.each(['?state=claimed', '?state=queued&wait=31', '?state=queued&wait=soon', ''])('refuses the query "%s" with 422', async (query) => {
    expect((await agent().queued(query)).status).toBe(422);
  });

  it.each<Role>(['editor', 'commenter', 'viewer'])('refuses a %s with 403', async (role) => {
    const answer = await server.api('/api/agent/runs?state=queued', { token: server.token(role) });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('FORBIDDEN');
  });
});

describe('POST /api/agent/runs/:runId/claim', () => {
  it('[CLAIM1] lets exactly one of two agents claiming at once win; the other gets 409 ALREADY_CLAIMED', async () => {
    const { runId, docId, blocks } = await sentRun(server, markdown, ['uppercase', 'delete']);
    const asked = Date.now();
    const answers = await Promise.all([agent({ name: 'A' }).claim(runId), agent({ name: 'B' }).claim(runId)]);
    const answered = Date.now();
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const lost = answers.find((answer) => answer.status === 409)!;
    expect(lost.body.error).toEqual({ code: 'ALREADY_CLAIMED', message: expect.any(String) });
    const won = answers.find((answer) => answer.status === 200)!;
    expect(won.body).toEqual({
      runId,
      docId,
      items: [expect.objectContaining({ instruction: 'uppercase' }), expect.objectContaining({ instruction: 'delete' })],
      createdAt: expect.any(String),
      lease: { expiresAt: expect.any(String) },
      document: { blocks },
    });
    // The lease runs 30 s from the moment of the claim, which lies between asking and the answer.
    const expiresAt = Date.parse(won.body.lease.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(asked + 30_000);
    expect(expiresAt).toBeLessThanOrEqual(answered + 30_000);
    const run = await getRun(server, runId);
    expect(run).toMatchObject({ state: 'claimed', lease: won.body.lease });
    expect(['A', 'B']).toContain(run.claimedBy?.name);
  });

  it('[CLAIM1] shows the claim in the runs mirror', async () => {
    const { runId, docId } = await sentRun(server, markdown, ['uppercase']);
    const runs = connectPeer({ wsUrl: server.wsUrl, name: docName(docId, 'runs'), token: server.token('viewer') });
    server.track(runs);
    await runs.synced;
    await agent({ sub: 'bot-7', name: 'Bot seven' }).claim(runId);
    await waitFor(() => readRunRecords(runs.ydoc).runs[0]?.state === 'claimed');
    expect(readRunRecords(runs.ydoc).runs[0]).toMatchObject({ claimedBy: { id: 'bot-7', name: 'Bot seven' }, lease: { expiresAt: expect.any(String) } });
  });

  it('answers 409 NOT_QUEUED for a run that is past its queue, and 404 for an unknown run', async () => {
    const { runId } = await sentRun(server, markdown, ['uppercase']);
    const bot = agent();
    await bot.claim(runId);
    await bot.complete(runId);
    expect((await agent().claim(runId)).body.error.code).toBe('NOT_QUEUED');
    expect((await bot.claim('rnosuchrun00')).status).toBe(404);
    expect((await bot.claim('not a run')).status).toBe(404);
  });

  it.each<Role>(['editor', 'commenter', 'viewer'])('refuses a %s with 403 and leaves the run queued', async (role) => {
    const { runId } = await sentRun(server, markdown, ['uppercase']);
    const answer = await agentApi(server, server.token(role)).claim(runId);
    expect(answer.status).toBe(403);
    expect((await getRun(server, runId)).state).toBe('queued');
  });

  it('refuses an agent whose token is for another document with 403', async () => {
    const { runId } = await sentRun(server, markdown, ['uppercase']);
    const other = await createDoc(server, 'x');
    expect((await agent({ doc: other.id }).claim(runId)).status).toBe(403);
  });
});

describe('POST /api/agent/runs/:runId/heartbeat', () => {
  it('[CLAIM2] moves the lease of the agent holding the claim, and no one else', async () => {
    const { runId } = await sentRun(server, markdown, ['uppercase']);
    const bot = agent();
    const claimed = await bot.claim(runId);
    // The heartbeat must come at a later millisecond than the claim for its lease to end later.
    const answered = Date.now();
    await waitFor(() => Date.now() > answered, 1000, 1);
    const beat = await bot.heartbeat(runId);
    expect(beat.status).toBe(200);
    expect(Date.parse(beat.body.lease.expiresAt)).toBeGreaterThan(Date.parse(claimed.body.lease.expiresAt));
    expect((await getRun(server, runId)).lease).toEqual(beat.body.lease);
    const stranger = await agent().heartbeat(runId);
    expect(stranger.status).toBe(409);
    expect(stranger.body.error.code).toBe('NOT_CLAIMED');
  });
});

describe('POST /api/agent/runs/:runId/ops', () => {
  it('[OP5] applies a batch, records its changes, and answers {applied}', async () => {
    const { runId, docId, blocks, instructionIds } = await sentRun(server, markdown, ['uppercase', 'delete']);
    const bot = agent();
    await bot.claim(runId);
    const answer = await bot.ops(runId, 'k1', [
      replaceOp(blocks[0], 'ALPHA ONE', instructionIds[0]),
      { op: 'delete_block', blockId: blocks[1].id, expectHash: blocks[1].hash, instructionId: instructionIds[1] },
    ]);
    expect(answer).toMatchObject({ status: 200, body: { applied: 2 } });
    expect(await markdownOf(server, docId)).toBe('ALPHA ONE\n\ngamma three');
    const run = await getRun(server, runId);
    expect(run.changes).toEqual([
      { op: 'replace_block', blockId: blocks[0].id, instructionId: instructionIds[0], before: 'alpha one', after: 'ALPHA ONE' },
      { op: 'delete_block', blockId: blocks[1].id, instructionId: instructionIds[1], before: 'beta two', after: null },
    ]);
    expect(run.items.map((item) => item.outcome)).toEqual(['changed', 'changed']);
  });

  it('[OP6] answers a replayed key with the first response and applies nothing again', async () => {
    const { runId, docId, blocks, instructionIds } = await sentRun(server, markdown, ['insert "x" after']);
    const bot = agent();
    await bot.claim(runId);
    const ops = [{ op: 'insert_after', blockId: blocks[0].id, markdown: 'inserted', instructionId: instructionIds[0] }];
    const first = await bot.ops(runId, 'same-key', ops);
    const replays = await Promise.all([bot.ops(runId, 'same-key', ops), bot.ops(runId, 'same-key', ops)]);
    for (const replay of replays) expect(replay).toMatchObject({ status: first.status, body: first.body });
    expect(first.body).toEqual({ applied: 1 });
    expect(await markdownOf(server, docId)).toBe('alpha one\n\ninserted\n\nbeta two\n\ngamma three');
    expect((await getRun(server, runId)).changes).toHaveLength(1);
    const next = await bot.ops(runId, 'other-key', ops);
    expect(next.body).toEqual({ applied: 1 });
    expect(await markdownOf(server, docId)).toBe('alpha one\n\ninserted\n\ninserted\n\nbeta two\n\ngamma three');
  });

  describe('[OP1] a refused batch changes nothing', () => {
    async function refusedBatch(makeOps: (ctx: Awaited<ReturnType<typeof sentRun>>) => unknown, options: { ops?: ('replace_block' | 'insert_after' | 'delete_block')[]; edit?: boolean } = {}) {
      const ctx = await sentRun(server, markdown, ['uppercase', 'delete']);
      const peer = await watch(ctx.docId);
      const bot = agent(options.ops ? { ops: options.ops } : {});
      await bot.claim(ctx.runId);
      if (options.edit) {
        const editor = connectPeer({ wsUrl: server.wsUrl, name: ctx.docId, token: server.ownerToken });
        server.track(editor);
        await editor.synced;
        appendToBlock(editor.ydoc, 0, ' typed');
        await waitFor(async () => (await markdownOf(server, ctx.docId)).startsWith('alpha one typed'));
        await waitFor(() => Y.encodeStateVector(peer.ydoc).toString() === Y.encodeStateVector(editor.ydoc).toString());
      }
      const before = { state: Y.encodeStateAsUpdate(peer.ydoc), markdown: await markdownOf(server, ctx.docId), blocks: await blocksOf(server, ctx.docId) };
      const answer = await bot.ops(ctx.runId, 'refused', makeOps(ctx));
      // The watcher's round trip starts after the answer, so it brings anything the batch wrote.
      await roundTrip(peer);
      expect(Y.encodeStateAsUpdate(peer.ydoc)).toEqual(before.state);
      expect(await markdownOf(server, ctx.docId)).toBe(before.markdown);
      expect(await blocksOf(server, ctx.docId)).toEqual(before.blocks);
      const run = await getRun(server, ctx.runId);
      expect(run.changes).toEqual([]);
      expect(run.items.map((item) => item.outcome)).toEqual(['pending', 'pending']);
      return answer;
    }

    it('409 STALE_BLOCK with the block when a person edited it since the agent read it', async () => {
      const answer = await refusedBatch(({ blocks, instructionIds }) => [replaceOp(blocks[0], 'ALPHA ONE', instructionIds[0])], { edit: true });
      expect(answer.status).toBe(409);
      expect(answer.body.error).toMatchObject({ code: 'STALE_BLOCK', index: 0, message: expect.stringContaining('changed') });
      expect(answer.body.error.blockId).toMatch(/^b/);
    });

    it('422 INVALID_OP with the index of the bad op, the good ones before it unapplied', async () => {
      const answer = await refusedBatch(({ blocks, instructionIds }) => [
        replaceOp(blocks[0], 'ALPHA ONE', instructionIds[0]),
        { op: 'delete_block', blockId: blocks[1].id, instructionId: instructionIds[1] },
      ]);
      expect(answer.status).toBe(422);
      expect(answer.body.error).toMatchObject({ code: 'INVALID_OP', index: 1 });
    });

    it('403 OUTSIDE_FENCE for a block no instruction of the run targets', async () => {
      const answer = await refusedBatch(({ blocks, instructionIds }) => [
        replaceOp(blocks[0], 'ALPHA ONE', instructionIds[0]),
        replaceOp(blocks[2], 'GAMMA', instructionIds[0]),
      ]);
      expect(answer.status).toBe(403);
      expect(answer.body.error).toMatchObject({ code: 'OUTSIDE_FENCE', index: 1 });
    });

    it("403 OP_NOT_ALLOWED for an op kind outside the token's allowlist", async () => {
      const answer = await refusedBatch(
        ({ blocks, instructionIds }) => [
          replaceOp(blocks[0], 'ALPHA ONE', instructionIds[0]),
          { op: 'delete_block', blockId: blocks[1].id, expectHash: blocks[1].hash, instructionId: instructionIds[1] },
        ],
        { ops: ['replace_block', 'insert_after'] },
      );
      expect(answer.status).toBe(403);
      expect(answer.body.error).toMatchObject({ code: 'OP_NOT_ALLOWED', index: 1 });
    });

    it('422 INVALID_OP (index -1) for ops that are no list', async () => {
      const answer = await refusedBatch(() => 'delete everything');
      expect(answer.status).toBe(422);
      expect(answer.body.error).toMatchObject({ code: 'INVALID_OP', index: -1 });
    });
  });

  it('[OP5] refuses ops from an agent that does not hold the claim with 409 NOT_CLAIMED', async () => {
    const { runId, docId, blocks, instructionIds } = await sentRun(server, markdown, ['uppercase']);
    const ops = [replaceOp(blocks[0], 'ALPHA ONE', instructionIds[0])];
    expect((await agent().ops(runId, 'k', ops)).body.error.code).toBe('NOT_CLAIMED');
    await agent().claim(runId);
    expect((await agent().ops(runId, 'k', ops)).body.error.code).toBe('NOT_CLAIMED');
    expect(await markdownOf(server, docId)).toBe(markdown);
  });

  it('refuses a batch without an idempotency key with 422 INVALID_BODY', async () => {
    const { runId } = await sentRun(server, markdown, ['uppercase']);
    const token = server.token('agent');
    await agentApi(server, token).claim(runId);
    const answer = await server.api(`/api/agent/runs/${runId}/ops`, { method: 'POST', token, body: { ops: [] } });
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('INVALID_BODY');
  });

  it.each<Role>(['editor', 'commenter', 'viewer'])('refuses ops from a %s with 403', async (role) => {
    const { runId, blocks, instructionIds } = await sentRun(server, markdown, ['uppercase']);
    const answer = await agentApi(server, server.token(role)).ops(runId, 'k', [replaceOp(blocks[0], 'X', instructionIds[0])]);
    expect(answer.status).toBe(403);
  });

  it("[DOC3] ignores an agent's raw Yjs update: its connection is read-only", async () => {
    const { runId, docId } = await sentRun(server, markdown, ['uppercase']);
    const token = server.token('agent');
    await agentApi(server, token).claim(runId);
    const viewer = await watch(docId);
    const rogue = connectPeer({ wsUrl: server.wsUrl, name: docId, token });
    server.track(rogue);
    await rogue.synced;
    const before = Y.encodeStateAsUpdate(viewer.ydoc);
    appendToBlock(rogue.ydoc, 0, ' by the back door');
    await afterHandled([rogue], viewer);
    expect(Y.encodeStateAsUpdate(viewer.ydoc)).toEqual(before);
    expect(await markdownOf(server, docId)).toBe(markdown);
    expect((await getRun(server, runId)).changes).toEqual([]);
  });
});

describe('POST /api/agent/runs/:runId/complete', () => {
  it('[CLAIM4] puts the run in review: changed items stay changed, refusals are refused, the rest unchanged', async () => {
    const { runId, blocks, instructionIds } = await sentRun(server, markdown, ['uppercase', 'sing', 'lowercase']);
    const bot = agent();
    await bot.claim(runId);
    await bot.ops(runId, 'k', [replaceOp(blocks[0], 'ALPHA ONE', instructionIds[0])]);
    const answer = await bot.complete(runId, { summary: 'One done.', refusals: [{ instructionId: instructionIds[1], reason: 'I cannot sing.' }] });
    expect(answer).toMatchObject({ status: 200, body: { state: 'review' } });
    const run = await getRun(server, runId);
    expect(run).toMatchObject({ state: 'review', summary: 'One done.', lease: null, claimedBy: { id: expect.any(String) } });
    expect(run.items.map(({ outcome, reason }) => [outcome, reason])).toEqual([
      ['changed', null],
      ['refused', 'I cannot sing.'],
      ['unchanged', null],
    ]);
    expect((await bot.complete(runId)).body.error.code).toBe('NOT_CLAIMED');
  });

  it('[CLAIM4] refuses a refusal of an instruction a batch changed with 409 ALREADY_CHANGED, leaving the run claimed', async () => {
    const { runId, blocks, instructionIds } = await sentRun(server, markdown, ['uppercase', 'sing']);
    const bot = agent();
    await bot.claim(runId);
    await bot.ops(runId, 'k', [replaceOp(blocks[0], 'ALPHA ONE', instructionIds[0])]);
    const answer = await bot.complete(runId, { refusals: [{ instructionId: instructionIds[0], reason: 'Changed my mind.' }] });
    expect(answer).toMatchObject({ status: 409, body: { error: { code: 'ALREADY_CHANGED', instructionId: instructionIds[0] } } });
    expect((await getRun(server, runId)).state).toBe('claimed');
    expect((await bot.complete(runId, { refusals: [{ instructionId: instructionIds[1], reason: 'I cannot sing.' }] })).status).toBe(200);
    expect((await getRun(server, runId)).items.map(({ outcome, reason }) => [outcome, reason])).toEqual([
      ['changed', null],
      ['refused', 'I cannot sing.'],
    ]);
  });

  it('refuses a refusal of an instruction that is not in the run with 422, leaving the run claimed', async () => {
    const { runId } = await sentRun(server, markdown, ['uppercase']);
    const bot = agent();
    await bot.claim(runId);
    const answer = await bot.complete(runId, { refusals: [{ instructionId: 'nosuch', reason: 'no' }] });
    expect(answer.status).toBe(422);
    expect((await getRun(server, runId)).state).toBe('claimed');
  });
});

describe('POST /api/agent/runs/:runId/fail', () => {
  it('[CLAIM5] fails the run, takes its changes back and queues its instructions again', async () => {
    const { runId, docId, blocks, instructionIds } = await sentRun(server, markdown, ['uppercase', 'delete']);
    const bot = agent();
    await bot.claim(runId);
    await bot.ops(runId, 'k', [replaceOp(blocks[0], 'ALPHA ONE', instructionIds[0])]);
    expect(await markdownOf(server, docId)).toBe('ALPHA ONE\n\nbeta two\n\ngamma three');
    expect(await bot.fail(runId, 'The model is down.')).toMatchObject({ status: 200, body: { state: 'failed' } });
    expect(await markdownOf(server, docId)).toBe(markdown);
    expect(await getRun(server, runId)).toMatchObject({ state: 'failed', error: 'The model is down.', changes: [], lease: null });
    const notes = (await server.api(`/api/docs/${docId}`)).body.annotations;
    expect(notes.map((note: { state: string; runId: string | null }) => [note.state, note.runId])).toEqual([
      ['queued', null],
      ['queued', null],
    ]);
    const again = await server.api(`/api/docs/${docId}/runs`, { method: 'POST' });
    expect(again.status).toBe(201);
    expect(again.body.items.map((item: { instructionId: string }) => item.instructionId)).toEqual(instructionIds);
    expect((await bot.fail(runId, 'again')).body.error.code).toBe('NOT_CLAIMED');
  });

  it('refuses a fail without a message with 422', async () => {
    const { runId } = await sentRun(server, markdown, ['uppercase']);
    const token = server.token('agent');
    await agentApi(server, token).claim(runId);
    expect((await server.api(`/api/agent/runs/${runId}/fail`, { method: 'POST', token, body: {} })).status).toBe(422);
  });
});

describe('server shutdown', () => {
  it('[QUEUE1] answers a waiting long poll with an empty list and closes without waiting for it', { timeout: 20_000 }, async () => {
    const own = await startTestServer({ limits: { longPollsPerSubject: 1 } });
    try {
      const poll = await heldPoll(agentApi(own, own.token('agent')), '?state=queued&wait=30');
      // A close that waited for the poll's 30 s would outlast this test's timeout.
      await own.stop();
      expect(await poll.answer).toMatchObject({ status: 200, body: [] });
    } finally {
      await own.dispose();
    }
  });
});
