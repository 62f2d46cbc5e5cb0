import { describe, expect, it } from 'vitest';
import type { AgentReply } from '../../shared/protocol/agent-messages.ts';
import { connectPeer, waitFor } from '../helpers/peer.ts';
import { getRun, markdownOf, replaceOp, sentRun } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * The agent requests as stateless messages on an agent's Yjs connection (shared/PROTOCOL.md,
 * AGENT1–AGENT4): the same service as the HTTP routes, answered on the same connection.
 */

const server = useTestServer();

const markdown = 'alpha one\n\nbeta two';

/** An agent peer of `docId` that sends requests and collects the replies by request id. */
async function statelessAgent(docId: string, token = server.token('agent')) {
  const peer = connectPeer({ wsUrl: server.wsUrl, name: docId, token });
  server.track(peer);
  await peer.synced;
  const replies: AgentReply[] = [];
  peer.provider.on('stateless', ({ payload }: { payload: string }) => replies.push(JSON.parse(payload)));
  let next = 0;
  return {
    peer,
    replies,
    async request(message: Record<string, unknown>): Promise<AgentReply> {
      const requestId = `q${++next}`;
      peer.provider.sendStateless(JSON.stringify({ ...message, requestId }));
      const reply = () => replies.find((candidate) => candidate.requestId === requestId);
      await waitFor(() => reply() !== undefined, 5000, 10).catch(() => {
        throw new Error(`No reply to ${requestId}`);
      });
      return reply()!;
    },
  };
}

describe('agent requests as stateless messages', () => {
  it('[AGENT2] claim, ops, heartbeat and complete take a run to review', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    const agent = await statelessAgent(doc.docId);
    const claim = await agent.request({ type: 'claim', runId: doc.runId });
    expect(claim).toMatchObject({ ok: true, result: { runId: doc.runId, lease: { expiresAt: expect.any(String) }, document: { blocks: doc.blocks } } });
    const ops = [replaceOp(doc.blocks[0], 'ALPHA ONE', doc.instructionIds[0])];
    expect(await agent.request({ type: 'ops', runId: doc.runId, idempotencyKey: 'k', ops })).toMatchObject({ ok: true, result: { applied: 1 } });
    expect(await agent.request({ type: 'ops', runId: doc.runId, idempotencyKey: 'k', ops })).toMatchObject({ ok: true, result: { applied: 1 } });
    expect(await agent.request({ type: 'heartbeat', runId: doc.runId })).toMatchObject({ ok: true, result: { lease: { expiresAt: expect.any(String) } } });
    expect(await agent.request({ type: 'complete', runId: doc.runId, summary: 'Done.' })).toEqual({ requestId: expect.any(String), ok: true, result: { state: 'review' } });
    expect(await markdownOf(server, doc.docId)).toBe('ALPHA ONE\n\nbeta two');
    expect(await getRun(server, doc.runId)).toMatchObject({ state: 'review', summary: 'Done.', items: [{ outcome: 'changed' }] });
  });

  it('[AGENT1] [MODEL8] takes activity reports from the agent holding the run', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    const agent = await statelessAgent(doc.docId);
    expect(await agent.request({ type: 'activity', runId: doc.runId, line: 'early' })).toMatchObject({ ok: false, error: { code: 'NOT_CLAIMED' } });
    await agent.request({ type: 'claim', runId: doc.runId });
    expect(await agent.request({ type: 'activity', runId: doc.runId, line: 'reading the document', model: 'm' })).toMatchObject({ ok: true, result: { ok: true } });
    expect(await agent.request({ type: 'activity', runId: doc.runId, line: 'x'.repeat(201) })).toMatchObject({ ok: false, error: { code: 'INVALID_BODY' } });
    expect(await getRun(server, doc.runId)).toMatchObject({ agent: { model: 'm' }, activity: [{ text: 'reading the document' }] });
  });

  it('[AGENT3] answers a refusal with the code and details of the HTTP route', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    const agent = await statelessAgent(doc.docId);
    expect(await agent.request({ type: 'heartbeat', runId: doc.runId })).toMatchObject({ ok: false, error: { code: 'NOT_CLAIMED' } });
    await agent.request({ type: 'claim', runId: doc.runId });
    const stale = await agent.request({ type: 'ops', runId: doc.runId, idempotencyKey: 'k', ops: [{ ...replaceOp(doc.blocks[0], 'X', doc.instructionIds[0]), expectHash: 'old' }] });
    expect(stale).toMatchObject({ ok: false, error: { code: 'STALE_BLOCK', index: 0, blockId: doc.blocks[0].id } });
    expect(await agent.request({ type: 'fail', runId: doc.runId })).toMatchObject({ ok: false, error: { code: 'INVALID_BODY' } });
    expect(await agent.request({ type: 'fail', runId: doc.runId, message: 'Gave up.' })).toMatchObject({ ok: true, result: { state: 'failed' } });
  });

  it('[AGENT4] refuses a run of another document, and anyone who is not an agent', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    const other = await sentRun(server, markdown, ['delete']);
    const agent = await statelessAgent(doc.docId);
    expect(await agent.request({ type: 'claim', runId: other.runId })).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const editor = await statelessAgent(doc.docId, server.ownerToken);
    expect(await editor.request({ type: 'claim', runId: doc.runId })).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    expect((await getRun(server, doc.runId)).state).toBe('queued');
    expect((await getRun(server, other.runId)).state).toBe('queued');
  });

  it('[AGENT1] leaves other stateless messages alone and answers a request without an id with INVALID_BODY', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    const agent = await statelessAgent(doc.docId);
    const { peer } = agent;
    peer.provider.sendStateless('not json');
    peer.provider.sendStateless(JSON.stringify({ type: 'chat', text: 'hello' }));
    peer.provider.sendStateless(JSON.stringify({ type: 'claim', runId: doc.runId }));
    // A barrier that checks too: Hocuspocus hands one connection's stateless messages to the
    // extensions in order, and a heartbeat of this agent would succeed had the claim without an
    // id gone through. Its reply comes after any reply to the three messages before it.
    const marker = await agent.request({ type: 'heartbeat', runId: doc.runId });
    expect(marker).toMatchObject({ ok: false, error: { code: 'NOT_CLAIMED' } });
    expect(agent.replies).toEqual([{ requestId: null, ok: false, error: { code: 'INVALID_BODY', message: expect.any(String) } }, marker]);
    expect((await getRun(server, doc.runId)).state).toBe('queued');
  });
});
