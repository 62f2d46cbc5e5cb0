import { describe, expect, it } from 'vitest';
import { docName } from '../../shared/model/doc-layout.ts';
import { readAsides } from '../../shared/protocol/aside-records.ts';
import type { AsideRecord } from '../../shared/wire/asides.ts';
import { ask, asideAgent } from '../helpers/asides.ts';
import { waitFor } from '../helpers/peer.ts';
import { agentApi, sentRun, waitForState } from '../helpers/runs.ts';
import { startTestServer } from '../helpers/server.ts';
import { useTestServer, type FileServer } from '../helpers/use-test-server.ts';

/*
 * Asides through the real server: people ask or steer over HTTP, an agent (driven by hand over
 * the agent routes) receives and answers them, and the `<id>/runs` Y.Doc mirrors them.
 */

const server = useTestServer();

/** A run of one instruction, claimed by a fresh agent; its ids and the agent's routes. */
async function claimedRun(on: Pick<FileServer, 'api' | 'createDoc' | 'token'> = server) {
  const run = await sentRun(on, 'alpha\n\nbeta', ['Make it louder']);
  const token = on.token('agent');
  expect((await agentApi(on, token).claim(run.runId)).status).toBe(200);
  return { ...run, token, agent: { ...agentApi(on, token), ...asideAgent(on, token) } };
}

/** The asides every browser on `docId` sees, once `until` holds for them. */
async function mirrored(docId: string, until: (asides: AsideRecord[]) => boolean): Promise<AsideRecord[]> {
  const peer = server.connect(docName(docId, 'runs'));
  await peer.synced;
  await waitFor(() => until(readAsides(peer.ydoc)));
  return readAsides(peer.ydoc);
}

/** A fresh editor, so that no test runs into another's share of LIMIT7. */
const editor = () => server.token('editor', { name: 'Owner' });

describe('asides', () => {
  it('[ASIDE1] [ASIDE3] [ASIDE4] [ASIDE5] holds a commenter’s question until the agent’s streamed answer is done, with its handoff', async () => {
    const run = await claimedRun();
    const commenter = server.token('commenter', { name: 'Cora' });
    const asked = ask(server, run.runId, commenter, { text: 'What are you doing now?' });

    const polled = await run.agent.poll(run.runId, 10);
    expect(polled.status).toBe(200);
    expect(polled.body).toEqual([{ asideId: expect.any(String), kind: 'question', text: 'What are you doing now?', askedBy: { id: expect.any(String), name: 'Cora' } }]);
    const { asideId } = polled.body[0];
    // Handed out once.
    expect((await run.agent.poll(run.runId)).body).toEqual([]);

    expect((await run.agent.answer(run.runId, asideId, { chunk: 'Working on ' })).body).toEqual({ open: true });
    const streaming = await mirrored(run.docId, (asides) => asides[0]?.answer === 'Working on ');
    expect(streaming[0]).toMatchObject({ asideId, kind: 'question', route: null, done: false, askedBy: { name: 'Cora' } });

    const done = await run.agent.answer(run.runId, asideId, { chunk: 'item 1 of 1.', done: true, handoff: 'Shorten the intro' });
    expect(done.body).toEqual({ open: false });
    const answer = await asked;
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ route: 'side', answer: 'Working on item 1 of 1.', handoff: 'Shorten the intro' });
    // A late answer changes nothing.
    expect((await run.agent.answer(run.runId, asideId, { answer: 'Something else', done: true })).body).toEqual({ open: false });
  });

  it('[ASIDE6] mirrors the answer, its route, handoff and cache share to everyone on the document', async () => {
    const run = await claimedRun();
    const asked = ask(server, run.runId, editor(), { text: 'Is it going well?' });
    const [{ asideId }] = (await run.agent.poll(run.runId, 10)).body;
    await run.agent.answer(run.runId, asideId, { answer: 'Yes.', done: true, usage: { inputTokens: 1000, cachedInputTokens: 900 } });
    await asked;
    const viewerPeer = server.connect(docName(run.docId, 'runs'), server.token('viewer'));
    await viewerPeer.synced;
    await waitFor(() => readAsides(viewerPeer.ydoc)[0]?.done === true);
    expect(readAsides(viewerPeer.ydoc)).toEqual([
      {
        asideId,
        runId: run.runId,
        kind: 'question',
        text: 'Is it going well?',
        askedBy: { id: expect.stringMatching(/^editor-/), name: 'Owner' },
        askedAt: expect.any(String),
        route: 'side',
        answer: 'Yes.',
        handoff: null,
        done: true,
        note: null,
        cachedShare: 0.9,
      },
    ]);
  });

  it('[ASIDE2] [ASIDE3] sends a text that asks nothing, or is sent as a steer, to the run at once', async () => {
    const run = await claimedRun();
    expect((await ask(server, run.runId, editor(), { text: 'Keep the tests.' })).body).toEqual({ route: 'agent' });
    expect((await ask(server, run.runId, editor(), { text: 'Why delete the tests?', steer: true })).body).toEqual({ route: 'agent' });
    const polled = await run.agent.poll(run.runId, 10);
    expect(polled.body.map((aside: { kind: string; text: string }) => [aside.kind, aside.text])).toEqual([
      ['steer', 'Keep the tests.'],
      ['steer', 'Why delete the tests?'],
    ]);
    const asides = await mirrored(run.docId, (all) => all.length === 2);
    expect(asides.map((aside) => [aside.kind, aside.route])).toEqual([['steer', 'agent'], ['steer', 'agent']]);
  });

  it('[ASIDE5] answers the person "agent" when the agent takes the question as a steer, and the panel says so', async () => {
    const run = await claimedRun();
    const asked = ask(server, run.runId, editor(), { text: 'Why are you deleting the tests?' });
    const [{ asideId }] = (await run.agent.poll(run.runId, 10)).body;
    await run.agent.answer(run.runId, asideId, { answer: 'I will keep them.', done: true, route: 'agent' });
    expect((await asked).body).toEqual({ route: 'agent', note: 'The agent took this as a steer for the run.' });
    const [aside] = await mirrored(run.docId, (all) => all[0]?.done === true);
    expect(aside).toMatchObject({ route: 'agent', note: 'The agent took this as a steer for the run.', answer: 'I will keep them.' });
  });

  it('[ASIDE1] refuses an aside with 409 RUN_NOT_ACTIVE unless the run is being worked on', async () => {
    const queued = await sentRun(server, 'one', ['Do it']);
    const refused = await ask(server, queued.runId, editor(), { text: 'Are you there?' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('RUN_NOT_ACTIVE');

    const run = await claimedRun();
    expect((await run.agent.complete(run.runId)).status).toBe(200);
    const afterwards = await ask(server, run.runId, editor(), { text: 'Done?' });
    expect(afterwards.status).toBe(409);
    expect(afterwards.body.error.code).toBe('RUN_NOT_ACTIVE');
  });

  it('[ASIDE1] lets editors and commenters ask, and refuses viewers and agents with 403', async () => {
    const run = await claimedRun();
    for (const role of ['viewer', 'agent'] as const) {
      const refused = await ask(server, run.runId, server.token(role), { text: 'Keep going.' });
      expect(refused.status, role).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
    }
    expect((await ask(server, run.runId, server.token('commenter'), { text: 'Keep going.' })).body).toEqual({ route: 'agent' });
    expect((await ask(server, run.runId, server.token('editor'), { text: 'Keep going.' })).body).toEqual({ route: 'agent' });
    expect((await ask(server, run.runId, server.token('editor', { doc: 'another-doc' }), { text: 'Keep going.' })).status).toBe(404);
    const polled = await run.agent.poll(run.runId);
    expect(polled.body).toHaveLength(2);
  });

  it('[ASIDE1] refuses a malformed aside with 422 and queues nothing', async () => {
    const run = await claimedRun();
    for (const body of [{}, { text: '' }, { text: '   ' }, { text: 7 }, { text: 'x'.repeat(4001) }, { text: 'ok', steer: 'yes' }, ['text']]) {
      const refused = await ask(server, run.runId, editor(), body);
      expect(refused.status, JSON.stringify(body).slice(0, 40)).toBe(422);
      expect(refused.body.error.code).toBe('INVALID_BODY');
    }
    expect((await run.agent.poll(run.runId)).body).toEqual([]);
  });

  it('[ASIDE4] gives a run’s asides to the agent holding its claim only', async () => {
    const run = await claimedRun();
    const other = asideAgent(server, server.token('agent'));
    const refused = await other.poll(run.runId);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('NOT_CLAIMED');
    expect((await asideAgent(server, editor()).poll(run.runId)).status).toBe(403);
    expect((await other.answer(run.runId, 'nope', { answer: 'x', done: true })).status).toBe(409);
    expect((await run.agent.answer(run.runId, 'nope', { answer: 'x', done: true })).status).toBe(404);
    expect((await run.agent.answer(run.runId, 'nope', { done: 'yes' })).status).toBe(422);
  });

  it('[ASIDE8] answers a waiting question 409 RUN_NOT_ACTIVE when the run ends, and drops its asides from the mirror', async () => {
    const run = await claimedRun();
    const asked = ask(server, run.runId, editor(), { text: 'Still there?' });
    expect((await run.agent.poll(run.runId, 10)).body).toHaveLength(1);
    await mirrored(run.docId, (all) => all.length === 1);
    expect((await run.agent.complete(run.runId)).status).toBe(200);
    const answer = await asked;
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('RUN_NOT_ACTIVE');
    await waitForState(server, run.runId, 'review');
    expect(await mirrored(run.docId, (all) => all.length === 0)).toEqual([]);
  });
});

describe('asides the agent does not answer', () => {
  it('[ASIDE7] go to the run as a steer after the timeout, and say so', async () => {
    const own = await startTestServer({ asideTimeoutMs: 200 });
    try {
      const run = await sentRun(own, 'alpha', ['Make it louder']);
      const token = own.token('agent');
      expect((await agentApi(own, token).claim(run.runId)).status).toBe(200);
      const agent = asideAgent(own, token);
      const answer = await ask(own, run.runId, own.ownerToken, { text: 'Are you stuck?' });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ route: 'agent', note: 'The agent did not answer within 200 ms: the question went to the run as a steer.' });
      const polled = await agent.poll(run.runId);
      expect(polled.body.map((aside: { kind: string; text: string }) => [aside.kind, aside.text])).toEqual([
        ['question', 'Are you stuck?'],
        ['steer', 'Are you stuck?'],
      ]);
    } finally {
      await own.dispose();
    }
  });
});

describe('the limits of asides', () => {
  it('[ASIDE3] counts open questions per person: a commenter’s four waiting questions block nobody else’s', async () => {
    const run = await claimedRun();
    const commenter = server.token('commenter', { name: 'Cleo' });
    const waiting = [0, 1, 2, 3].map((index) => ask(server, run.runId, commenter, { text: `Question ${index}?` }));
    await mirrored(run.docId, (asides) => asides.length === 4);
    expect((await run.agent.poll(run.runId)).body).toHaveLength(4);
    const fifth = await ask(server, run.runId, commenter, { text: 'One more?' });
    expect(fifth.status).toBe(429);
    expect(fifth.body.error).toEqual({ code: 'TOO_MANY_ASIDES', message: 'The agent has your questions to answer already; wait for its answers.', retryAfter: 5 });

    // Another person, an editor or a commenter, still asks, and the agent's answer reaches them.
    const questions = [
      ask(server, run.runId, editor(), { text: 'How far along are you?' }),
      ask(server, run.runId, server.token('commenter', { name: 'Dee' }), { text: 'Anything for me?' }),
    ];
    await mirrored(run.docId, (asides) => asides.length === 6);
    const handed = (await run.agent.poll(run.runId)).body as { asideId: string; text: string }[];
    // The two were asked at once: the store may hold them in either order.
    expect(handed.map((aside) => aside.text).sort()).toEqual(['Anything for me?', 'How far along are you?']);
    for (const aside of handed) expect((await run.agent.answer(run.runId, aside.asideId, { answer: 'Half way.', done: true })).status).toBe(200);
    for (const answer of await Promise.all(questions)) expect(answer.body).toEqual({ route: 'side', answer: 'Half way.' });

    expect((await run.agent.fail(run.runId, 'Stopping here')).status).toBe(200);
    for (const answer of await Promise.all(waiting)) expect(answer.body.error.code).toBe('RUN_NOT_ACTIVE');
  });
});

describe('the rate of asides', () => {
  it('[LIMIT7] refuses asides beyond the rate with 429 RATE_LIMITED', async () => {
    const own = await startTestServer({ limits: { asides: { burst: 2, perSecond: 0.01 } } });
    try {
      const run = await sentRun(own, 'alpha', ['Make it louder']);
      expect((await agentApi(own, own.token('agent')).claim(run.runId)).status).toBe(200);
      expect((await ask(own, run.runId, own.ownerToken, { text: 'One.' })).status).toBe(200);
      expect((await ask(own, run.runId, own.ownerToken, { text: 'Two.' })).status).toBe(200);
      const refused = await ask(own, run.runId, own.ownerToken, { text: 'Three.' });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await own.dispose();
    }
  });
});
