import { afterEach, describe, expect, it } from 'vitest';
import { startModelAgent, modelAgentName } from '../../agents/model/model-agent.ts';
import { openAiProvider } from '../../agents/model/openai-provider.ts';
import { anthropicProvider } from '../../agents/model/anthropic-provider.ts';
import { steerTaken } from '../../agents/model/aside.ts';
import type { RunningAgent } from '../../agents/reference/reference-agent.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { readAsides } from '../../shared/protocol/aside-records.ts';
import { startFakeOpenAi, type ChatRequestBody, type FakeOpenAi, type FakeReply, type FakeStep } from '../helpers/fake-openai.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.ts';
import { ask } from '../helpers/asides.ts';
import { waitFor } from '../helpers/peer.ts';
import { markdownOf, sentRun, waitForState } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * Asides to the model agent end to end: the real server, the official SDKs and a scripted model
 * server. The run's second model call is held open until the test lets it go, so that a person's
 * aside comes while the run is in the middle of its work.
 */

const server = useTestServer();

let model: { close(): Promise<void> } | null = null;
let agent: RunningAgent | null = null;

afterEach(async () => {
  await agent?.stop();
  await model?.close();
  agent = null;
  model = null;
});

function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

function startAgent(provider: Parameters<typeof startModelAgent>[0]['provider']) {
  const token = server.token('agent', { sub: 'model-agent', name: modelAgentName });
  agent = startModelAgent({ url: server.url, token, provider, pollSeconds: 2 });
}

/**
 * A run of one instruction and an OpenAI-compatible model whose script is: read the document;
 * (held until `release`) read it again; `aside`, the answer to the side question (and `more`
 * after it); done.
 */
async function runWithHeldTurn(
  aside: FakeReply | ((target: { blockId: string; instructionId: string }) => FakeReply),
  more: FakeReply[] = [],
): Promise<{ fake: FakeOpenAi; release: () => void; runId: string; docId: string }> {
  const doc = await sentRun(server, 'alpha\n\nbeta', ['Make it louder']);
  const held = gate();
  const script: FakeStep[] = [
    { toolCalls: [{ name: 'read_document', arguments: {} }] },
    async () => {
      await held.opened;
      return { toolCalls: [{ name: 'read_block', arguments: { blockId: doc.blocks[0].id } }] };
    },
    typeof aside === 'function' ? aside({ blockId: doc.blocks[0].id, instructionId: doc.instructionIds[0] }) : aside,
    ...more,
    { text: 'Made it louder.' },
  ];
  const fake = await startFakeOpenAi(script);
  model = fake;
  startAgent(openAiProvider({ baseURL: fake.baseURL, apiKey: 'sk-test', model: 'fake-model', callTimeoutMs: 10_000 }));
  await waitFor(() => fake.requests.length === 2, 15_000);
  return { fake, release: held.open, runId: doc.runId, docId: doc.docId };
}

const userTexts = (body: ChatRequestBody) => body.messages.filter((message) => message.role === 'user').map((message) => message.content ?? '');

describe('a side question to the model agent', () => {
  it('[ASIDE10] is one request that is the run’s latest request with one message appended, and never enters the run', async () => {
    const { fake, release, runId } = await runWithHeldTurn({ text: 'route: side\nhandoff: Shorten the intro\nI am reading the document.' });
    const answer = await ask(server, runId, server.token('commenter', { name: 'Cora' }), { text: 'What are you doing right now?' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ route: 'side', answer: 'I am reading the document.', handoff: 'Shorten the intro' });
    release();
    await waitForState(server, runId, 'review', 15_000);

    const [, latest, aside, later] = fake.requests.map((request) => request.body);
    expect(fake.requests).toHaveLength(4);
    // Every field of the aside's request is the run's latest request's, element by element, in the same order…
    expect(Object.keys(aside)).toEqual(Object.keys(latest));
    for (const key of Object.keys(latest) as (keyof ChatRequestBody)[]) if (key !== 'messages') expect(aside[key], key).toEqual(latest[key]);
    expect(aside.messages).toHaveLength(latest.messages.length + 1);
    latest.messages.forEach((message, index) => expect(aside.messages[index], `message ${index}`).toEqual(message));
    // …so that the bytes of its body up to the new message are the latest request's bytes.
    expect(JSON.stringify({ ...aside, messages: aside.messages.slice(0, -1) })).toBe(JSON.stringify(latest));
    const question = aside.messages.at(-1)!;
    expect(question.role).toBe('user');
    expect(question.content).toContain('What are you doing right now?');
    expect(question.content).toContain('route: side');
    expect(question.content).toContain('Cora');
    // The run goes on from its own conversation: nothing of the aside is in its next request.
    expect(later.messages.slice(0, latest.messages.length)).toEqual(latest.messages);
    expect(JSON.stringify(later)).not.toContain('What are you doing right now?');
    expect(JSON.stringify(later)).not.toContain('I am reading the document.');
  });

  it('[ASIDE10] goes to the run as a steer when the model routes it there: the next run request carries it as a user message', async () => {
    const { fake, release, runId, docId } = await runWithHeldTurn({ text: 'route: agent\nYou are right: I will keep the tests.' });
    const answer = await ask(server, runId, server.token('editor'), { text: 'Why are you deleting the tests?' });
    expect(answer.body).toEqual({ route: 'agent', note: 'The agent took this as a steer for the run.' });
    const peer = server.connect(docName(docId, 'runs'));
    await peer.synced;
    await waitFor(() => readAsides(peer.ydoc)[0]?.done === true);
    expect(readAsides(peer.ydoc)[0]).toMatchObject({ route: 'agent', answer: 'You are right: I will keep the tests.', note: 'The agent took this as a steer for the run.' });
    release();
    await waitForState(server, runId, 'review', 15_000);
    const [, latest, , later] = fake.requests.map((request) => request.body);
    const steer = userTexts(later).at(-1)!;
    expect(steer).toContain('Why are you deleting the tests?');
    expect(steer).not.toContain('route: side');
    // The steer follows the answers to the latest request's tool calls.
    expect(later.messages.at(-1)?.role).toBe('user');
    expect(later.messages.at(-2)?.role).toBe('tool');
    expect(userTexts(later).filter((text) => text.includes('Why are you deleting the tests?'))).toHaveLength(1);
    expect(latest.messages.length).toBeLessThan(later.messages.length);
  });

  it('[ASIDE10] may read the document but not change it, in a bounded number of calls', async () => {
    const { fake, release, runId, docId } = await runWithHeldTurn(
      ({ blockId, instructionId }) => ({
        toolCalls: [
          { name: 'read_document', arguments: {} },
          { name: 'replace_block', arguments: { instructionId, blockId, markdown: 'HACKED' } },
        ],
      }),
      [{ text: 'route: side\nThe first block says alpha.' }],
    );
    const answer = await ask(server, runId, server.token('editor'), { text: 'What does the first block say?' });
    expect(answer.body).toEqual({ route: 'side', answer: 'The first block says alpha.' });
    const followUp = fake.requests[3].body;
    const answers = followUp.messages.filter((message) => message.role === 'tool').slice(-2).map((message) => JSON.parse(message.content ?? 'null'));
    expect(answers[0].blocks.map((block: { markdown: string }) => block.markdown)).toEqual(['alpha', 'beta']);
    expect(answers[1]).toEqual({ error: { code: 'READ_ONLY_ASIDE', message: expect.any(String) } });
    expect(await markdownOf(server, docId)).toBe('alpha\n\nbeta');
    release();
    await waitForState(server, runId, 'review', 15_000);
    // The run's own last request knows nothing of the aside's turns.
    expect(JSON.stringify(fake.requests[4].body)).not.toContain('READ_ONLY_ASIDE');
  });

  it('[ASIDE10] that fails (the model server answers 500) goes to the run as a steer, and says so', async () => {
    const { fake, release, runId, docId } = await runWithHeldTurn({ status: 500, error: { message: 'overloaded' } });
    const answer = await ask(server, runId, server.token('editor'), { text: 'Is the intro next?' });
    expect(answer.body).toEqual({ route: 'agent', note: 'The agent took this as a steer for the run.' });
    const peer = server.connect(docName(docId, 'runs'));
    await peer.synced;
    await waitFor(() => readAsides(peer.ydoc)[0]?.done === true);
    expect(readAsides(peer.ydoc)[0].answer).toMatch(/^The side answer failed \(The model server at .* answered 500.*\); the question went to the run as a steer\.$/);
    release();
    await waitForState(server, runId, 'review', 15_000);
    expect(userTexts(fake.requests[3].body).at(-1)).toContain('Is the intro next?');
  });

  it('[ASIDE10] a steer reaches the model as a user message at its next turn, and no model call is made for it', async () => {
    const { fake, release, runId, docId } = await runWithHeldTurn({ text: 'Made it louder.' });
    expect((await ask(server, runId, server.token('editor'), { text: 'Keep the first sentence.' })).body).toEqual({ route: 'agent' });
    const peer = server.connect(docName(docId, 'runs'));
    await peer.synced;
    await waitFor(() => readAsides(peer.ydoc)[0]?.done === true);
    expect(readAsides(peer.ydoc)[0]).toMatchObject({ kind: 'steer', route: 'agent', answer: steerTaken });
    release();
    await waitForState(server, runId, 'review', 15_000);
    // Request 3 is the run's own, and its last: the steer took no call of its own.
    expect(fake.requests).toHaveLength(3);
    expect(userTexts(fake.requests[2].body).at(-1)).toContain('Keep the first sentence.');
  });
});

describe('a side question asked as the model run ends', () => {
  it('[ASIDE8] [ASIDE10] is answered before the run goes to review', async () => {
    const doc = await sentRun(server, 'alpha\n\nbeta', ['Make it louder']);
    const asideAsked = gate();
    const runEnded = gate();
    const script: FakeStep[] = [
      { toolCalls: [{ name: 'read_document', arguments: {} }] },
      // The run's last call answers once the aside's call is out: the run is done while the
      // model still works on the side question.
      async () => {
        await asideAsked.opened;
        runEnded.open();
        return { text: 'Made it louder.' };
      },
      async () => {
        asideAsked.open();
        await runEnded.opened;
        // The agent has the run's last answer by now; without waiting for the aside it would complete at once.
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { text: 'route: side\nI am about done.' };
      },
    ];
    const fake = await startFakeOpenAi(script);
    model = fake;
    startAgent(openAiProvider({ baseURL: fake.baseURL, apiKey: 'sk-test', model: 'fake-model', callTimeoutMs: 10_000 }));
    await waitFor(() => fake.requests.length === 2, 15_000);
    const answer = await ask(server, doc.runId, server.token('commenter', { name: 'Cora' }), { text: 'Nearly there?' });
    expect(answer).toMatchObject({ status: 200, body: { route: 'side', answer: 'I am about done.' } });
    const run = await waitForState(server, doc.runId, 'review', 10_000);
    expect(run.summary).toBe('Made it louder.');
  });
});

describe('a side question to the model agent over the Anthropic Messages API', () => {
  it('[ASIDE10] is the run’s latest request with one user message appended', async () => {
    const doc = await sentRun(server, 'alpha\n\nbeta', ['Make it louder']);
    const held = gate();
    const fake: FakeAnthropic = await startFakeAnthropic([
      { toolCalls: [{ name: 'read_document', input: {} }] },
      async () => {
        await held.opened;
        return { text: 'Made it louder.' };
      },
      { text: 'route: side\nStill reading.' },
    ]);
    model = fake;
    startAgent(anthropicProvider({ baseURL: fake.baseURL, apiKey: 'sk-ant-test', model: 'claude-fake', callTimeoutMs: 10_000 }));
    await waitFor(() => fake.requests.length === 2, 15_000);
    const answer = await ask(server, doc.runId, server.token('editor'), { text: 'How far are you?' });
    expect(answer.body).toEqual({ route: 'side', answer: 'Still reading.' });
    // The provider's usage reaches the panel: the fake Messages API reports 10 input tokens, none from cache.
    const peer = server.connect(docName(doc.docId, 'runs'));
    await peer.synced;
    await waitFor(() => readAsides(peer.ydoc)[0]?.done === true);
    expect(readAsides(peer.ydoc)[0].cachedShare).toBe(0);
    held.open();
    await waitForState(server, doc.runId, 'review', 15_000);
    const [, latest, aside] = fake.requests.map((request) => request.body);
    expect(Object.keys(aside)).toEqual(Object.keys(latest));
    expect(JSON.stringify({ ...aside, messages: aside.messages.slice(0, -1) })).toBe(JSON.stringify(latest));
    expect(aside.messages.at(-1)).toEqual({ role: 'user', content: expect.stringContaining('How far are you?') });
  });
});
