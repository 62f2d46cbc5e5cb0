import { describe, expect, it } from 'vitest';
import { docName } from '../../shared/model/doc-layout.ts';
import { readRunRecords } from '../../shared/protocol/run-record.ts';
import { connectPeer, waitFor } from '../helpers/peer.ts';
import { agentApi, blocksOf, getRun, heldPoll, markdownOf, replaceOp, sentRun, waitForState } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * Leases (shared/PROTOCOL.md CLAIM2, CLAIM3): a claim lasts LEASE_MS unless the agent renews it;
 * a lease that runs out puts the run back in the queue and takes back what the claim had
 * already changed, so that the next agent starts from the text the run was sent with.
 *
 * The server reads leases off a clock these tests move on by hand (real time plus `ahead`), so
 * a lease runs out when a test says so, never because the machine was slow.
 */

const leaseMs = 30_000;
const clock = {
  ahead: 0,
  now: () => Date.now() + clock.ahead,
  advance(ms: number) {
    clock.ahead += ms;
  },
};
// One long poll per agent lets helpers/runs.ts heldPoll tell when the server holds one.
const server = useTestServer({ leaseMs, leaseClock: () => clock.now(), limits: { longPollsPerSubject: 1 } });

/** A run of its own document, claimed by an agent that never renews it: its requeue shows that a sweep ran. */
async function unrenewedClaim(): Promise<string> {
  const control = await sentRun(server, markdown, ['uppercase']);
  expect((await agentApi(server, server.token('agent')).claim(control.runId)).status).toBe(200);
  return control.runId;
}

const markdown = 'alpha one\n\nbeta two\n\ngamma three';

describe('a lease that runs out', () => {
  it('[CLAIM3] requeues the run and takes back the changes the claim applied', async () => {
    const doc = await sentRun(server, markdown, ['uppercase', 'delete']);
    const runs = connectPeer({ wsUrl: server.wsUrl, name: docName(doc.docId, 'runs'), token: server.token('viewer') });
    server.track(runs);
    const slow = agentApi(server, server.token('agent', { sub: 'slow' }));
    const asked = clock.now();
    const claimed = await slow.claim(doc.runId);
    const expiresAt = Date.parse(claimed.body.lease.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(asked + leaseMs);
    expect(expiresAt).toBeLessThanOrEqual(clock.now() + leaseMs);
    const [alpha, beta] = doc.blocks;
    await slow.ops(doc.runId, 'k1', [
      replaceOp(alpha, 'ALPHA ONE', doc.instructionIds[0]),
      { op: 'delete_block', blockId: beta.id, expectHash: beta.hash, instructionId: doc.instructionIds[1] },
    ]);
    expect(await markdownOf(server, doc.docId)).toBe('ALPHA ONE\n\ngamma three');

    clock.advance(leaseMs + 1);
    const run = await waitForState(server, doc.runId, 'queued', 10_000);
    expect(run).toMatchObject({ claimedBy: null, lease: null, changes: [] });
    expect(run.items.map((item) => item.outcome)).toEqual(['pending', 'pending']);
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
    await waitFor(() => readRunRecords(runs.ydoc).runs[0]?.state === 'queued');

    expect((await slow.ops(doc.runId, 'k2', [replaceOp(alpha, 'late', doc.instructionIds[0])])).body.error.code).toBe('NOT_CLAIMED');
    expect((await slow.heartbeat(doc.runId)).body.error.code).toBe('NOT_CLAIMED');
    expect((await slow.complete(doc.runId)).body.error.code).toBe('NOT_CLAIMED');

    const next = agentApi(server, server.token('agent', { sub: 'next' }));
    const reclaimed = await next.claim(doc.runId);
    expect(reclaimed.status).toBe(200);
    expect(reclaimed.body.document.blocks).toEqual(doc.blocks);
    // The same key as the first claim's batch: a new claim starts with no batches behind it.
    expect((await next.ops(doc.runId, 'k1', [replaceOp(alpha, 'Alpha One', doc.instructionIds[0])])).body).toEqual({ applied: 1 });
    expect((await next.complete(doc.runId)).status).toBe(200);
    expect(await markdownOf(server, doc.docId)).toBe('Alpha One\n\nbeta two\n\ngamma three');
    const notes = (await server.api(`/api/docs/${doc.docId}`)).body.annotations;
    expect(notes.map((note: { state: string }) => note.state)).toEqual(['sent', 'sent']);
  });

  it('[AUDIT1] [CLAIM3] writes the lease that ran out to the audit log, naming the agent that held it', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    expect((await agentApi(server, server.token('agent', { sub: 'sleepy', name: 'Sleepy' })).claim(doc.runId)).status).toBe(200);
    clock.advance(leaseMs + 1);
    await waitForState(server, doc.runId, 'queued', 10_000);
    const expiries = async () =>
      ((await server.api(`/api/docs/${doc.docId}/audit`)).body.entries as { action: string }[]).filter((entry) => entry.action === 'run.lease-expired');
    await waitFor(async () => (await expiries()).length === 1);
    expect(await expiries()).toEqual([{ id: expect.any(Number), at: expect.any(String), action: 'run.lease-expired', actor: { id: 'sleepy', name: 'Sleepy', role: 'agent' }, runId: doc.runId }]);
  });

  it('[CLAIM3] wakes a long poll when the run is queued again', { timeout: 15_000 }, async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    const bot = agentApi(server, server.token('agent', { doc: doc.docId }));
    await bot.claim(doc.runId);
    const poll = await heldPoll(bot, '?state=queued&wait=25');
    clock.advance(leaseMs + 1);
    // Woken, not timed out: a poll held for its 25 s would outlast this test's timeout.
    expect((await poll.answer).body.map((run: { runId: string }) => run.runId)).toEqual([doc.runId]);
  });

  it('[CLAIM2] is kept by heartbeats for as long as they come', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    const bot = agentApi(server, server.token('agent'));
    await bot.claim(doc.runId);
    await bot.ops(doc.runId, 'k', [replaceOp(doc.blocks[0], 'ALPHA ONE', doc.instructionIds[0])]);
    const control = await unrenewedClaim();
    // Each step leaves a third of the last lease; six of them outlast the first lease three times over.
    for (let beat = 0; beat < 6; beat++) {
      clock.advance((leaseMs * 2) / 3);
      expect((await bot.heartbeat(doc.runId)).status).toBe(200);
    }
    await waitForState(server, control, 'queued', 10_000);
    expect((await getRun(server, doc.runId)).state).toBe('claimed');
    expect((await bot.complete(doc.runId)).status).toBe(200);

    const laterControl = await unrenewedClaim();
    clock.advance(leaseMs * 2);
    await waitForState(server, laterControl, 'queued', 10_000);
    expect((await getRun(server, doc.runId)).state).toBe('review');
    expect((await blocksOf(server, doc.docId))[0].markdown).toBe('ALPHA ONE');
  });
});
