import { afterEach, describe, expect, it } from 'vitest';
import type * as Y from 'yjs';
import { anthropicProvider } from '../../agents/model/anthropic-provider.ts';
import { modelAgentName, startModelAgent } from '../../agents/model/model-agent.ts';
import type { RunningAgent } from '../../agents/peer-loop.ts';
import { anchorFromRange } from '../../shared/model/anchors.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { createAnnotation } from '../../shared/notes/annotations-writers.ts';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { startFakeAnthropic, type FakeAnthropic, type FakeAnthropicReply, type MessagesRequestBody } from '../helpers/fake-anthropic.ts';
import { connectPeer, roundTrip, waitFor } from '../helpers/peer.ts';
import { createDoc, getRun, markdownOf, waitForState } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * VAR4 end to end for the agents: the reference agent answers `replace "A" with one of …` and
 * the model agent an instruction asking for N answers, each with one propose_variants; people
 * then choose, accept or discard in review. A real server, the agents over HTTP, and for the
 * model agent a scripted Anthropic Messages API server on 127.0.0.1 streaming as the real one.
 */

const server = useTestServer();
const markdown = 'The cat sat on the mat.\n\nBob wrote this.';

let running: { stop(): Promise<void> } | null = null;

afterEach(async () => {
  await running?.stop();
  running = null;
});

const choose = (runId: string, instructionId: string, variant: unknown) =>
  server.api(`/api/runs/${runId}/items/${instructionId}/choose`, { method: 'POST', body: { variant } });

/** A document with one instruction on its first block asking for `variants` answers, sent, and the reference agent at work. */
async function sentToReferenceAgent(instruction: string, variants: number, text = markdown) {
  const doc = await createDoc(server, text);
  const made = await server.api(`/api/docs/${doc.id}/annotations`, { method: 'POST', body: { kind: 'instruction', blockId: doc.blocks[0].id, text: instruction, variants } });
  expect(made.status).toBe(201);
  const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
  expect(sent.status).toBe(201);
  expect(sent.body.items[0].variantsWanted).toBe(variants);
  running = startTestReferenceAgent(server);
  const run = await waitForState(server, sent.body.runId, 'review', 10_000);
  return { docId: doc.id, runId: run.runId, instructionId: made.body.id as string, run };
}

describe('variants from the reference agent', () => {
  it('[VAR4] proposes one candidate per alternative; a choice swaps the text, a variant it lacks is refused, Accept keeps the one shown', async () => {
    const { docId, runId, instructionId, run } = await sentToReferenceAgent('replace "cat" with one of "dog", "fox", "owl"', 3);
    expect(run.items[0]).toMatchObject({
      outcome: 'changed',
      variantsWanted: 3,
      chosen: 0,
      variants: ['dog', 'fox', 'owl'].map((animal, index) => ({ index, markdown: `The ${animal} sat on the mat.` })),
    });
    expect(run.changes).toHaveLength(1);
    expect(await markdownOf(server, docId)).toBe('The dog sat on the mat.\n\nBob wrote this.');

    const chosen = await choose(runId, instructionId, 2);
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    expect(await markdownOf(server, docId)).toBe('The owl sat on the mat.\n\nBob wrote this.');
    const missing = await choose(runId, instructionId, 7);
    expect([missing.status, missing.body.error.code]).toEqual([422, 'NO_SUCH_VARIANT']);
    expect(await markdownOf(server, docId)).toBe('The owl sat on the mat.\n\nBob wrote this.');

    const accepted = await server.api(`/api/runs/${runId}/items/${instructionId}/accept`, { method: 'POST' });
    expect(accepted.status).toBe(200);
    expect((await getRun(server, runId)).state).toBe('accepted');
    expect(await markdownOf(server, docId)).toBe('The owl sat on the mat.\n\nBob wrote this.');
  });

  it('[VAR4] Discard of the run takes back the candidate shown', async () => {
    const { docId, runId, instructionId } = await sentToReferenceAgent('replace "cat" with one of "dog" or "fox"', 2);
    expect((await choose(runId, instructionId, 1)).status).toBe(200);
    expect(await markdownOf(server, docId)).toBe('The fox sat on the mat.\n\nBob wrote this.');
    expect((await server.api(`/api/runs/${runId}/discard`, { method: 'POST' })).status).toBe(200);
    expect(await markdownOf(server, docId)).toBe(markdown);
  });

  it('[VAR4] answers a plain replace with one change, even when the instruction asks for several answers', async () => {
    const { docId, run } = await sentToReferenceAgent('replace "cat" with "dog"', 3);
    expect(run.items[0]).toMatchObject({ outcome: 'changed', variantsWanted: 3, variants: [], chosen: null });
    expect(run.changes.map((change) => [change.op, change.after, change.variants])).toEqual([['replace_block', 'The dog sat on the mat.', undefined]]);
    expect(await markdownOf(server, docId)).toBe('The dog sat on the mat.\n\nBob wrote this.');
  });

  it('[VAR4] refuses alternatives for a word the block does not hold, changing nothing', async () => {
    const { docId, run } = await sentToReferenceAgent('replace "emu" with one of "dog", "fox"', 2);
    expect(run.items[0]).toMatchObject({ outcome: 'refused', reason: '"emu" does not occur in this text.', variants: [] });
    expect(await markdownOf(server, docId)).toBe(markdown);
  });

  it('[VAR4] [REF1] changes only the pinned words in every candidate', async () => {
    const paragraph = 'The cat sat; the cat ran.';
    const doc = await createDoc(server, paragraph);
    const token = server.token('editor', { sub: 'ann', name: 'Ann' });
    const text = server.track(connectPeer({ wsUrl: server.wsUrl, name: docName(doc.id), token }));
    const notes = server.track(connectPeer({ wsUrl: server.wsUrl, name: docName(doc.id, 'notes'), token }));
    await Promise.all([text.synced, notes.synced]);
    pinInstruction(notes.ydoc, text.ydoc, paragraph, 'the cat ran', 'replace "cat" with one of "dog", "fox"', 2);
    await waitFor(async () => (await server.api(`/api/docs/${doc.id}`)).body.annotations.length === 1);
    const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    expect(sent.body.items[0]).toMatchObject({ quote: 'the cat ran', variantsWanted: 2 });
    running = startTestReferenceAgent(server);
    const run = await waitForState(server, sent.body.runId, 'review', 10_000);
    expect(run.items[0].variants.map((variant) => variant.markdown)).toEqual(['The cat sat; the dog ran.', 'The cat sat; the fox ran.']);
  });
});

/** Pins an instruction asking for `variants` answers to the first `quote` in the paragraph `text` starts with. */
function pinInstruction(notes: Y.Doc, text: Y.Doc, paragraph: string, quote: string, instruction: string, variants: number): void {
  const at = 1 + paragraph.indexOf(quote);
  const pinned = anchorFromRange(text, at, at + quote.length);
  const made = createAnnotation(notes, { kind: 'instruction', ...pinned, author: { id: 'ann', name: 'Ann' }, text: instruction, variants, now: Date.now() });
  if (!made.ok) throw new Error(made.error.message);
}

/** The model agent over the Messages API of `model`, until the test ends. */
function startAnthropicAgent(model: FakeAnthropic): void {
  const token = server.token('agent', { sub: 'model-agent', name: modelAgentName });
  const provider = anthropicProvider({ baseURL: model.baseURL, apiKey: 'sk-ant-test', model: 'claude-fake', callTimeoutMs: 10_000 });
  const agent: RunningAgent = startModelAgent({ url: server.url, token, provider, pollSeconds: 2 });
  running = {
    async stop() {
      await agent.stop();
      await model.close();
    },
  };
}

const isGeneration = (body: MessagesRequestBody) => body.tools === undefined;
const userText = (body: MessagesRequestBody) => String(body.messages[0].content);

describe('variants from the model agent over the Anthropic Messages API', () => {
  it('[VAR4] [MODEL7] makes three tool-less requests at once from the server’s text, proposes their answers, and counts every request', async () => {
    const doc = await createDoc(server, 'The cat sat.\n\nOther text.');
    const blockId = doc.blocks[0].id;
    const made = await server.api(`/api/docs/${doc.id}/annotations`, { method: 'POST', body: { kind: 'instruction', blockId, text: 'Try other animals', variants: 3 } });
    // Between pin and Send a person writes on: the server's text is no longer the quote.
    const person = server.connect(doc.id);
    await person.synced;
    appendToBlock(person.ydoc, 0, ' Then it slept.');
    await roundTrip(person);
    const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    expect(sent.body.items[0]).toMatchObject({ quote: 'The cat sat.', variantsWanted: 3 });
    const instructionId: string = made.body.id;

    const usage = { input_tokens: 40, output_tokens: 8 };
    // Each generation is answered once all three are out (or, were they one after another, after 5 s).
    let arrived = 0;
    let allOut!: () => void;
    const barrier = new Promise<void>((resolve) => (allOut = resolve));
    const outAtAnswer: number[] = [];
    const generation = (text: string) => async (): Promise<FakeAnthropicReply> => {
      if (++arrived === 3) allOut();
      await Promise.race([barrier, new Promise((resolve) => setTimeout(resolve, 5000))]);
      outAtAnswer.push(arrived);
      return { text, usage };
    };
    const model = await startFakeAnthropic([
      { toolCalls: [{ name: 'read_block', input: { blockId } }], usage },
      // A `markdown` of its own is no input of the tool: the generations start from the server's text.
      { toolCalls: [{ name: 'rewrite_variants', input: { instructionId, blockId, instruction: 'Try other animals', markdown: 'FORGED TEXT' } }], usage },
      generation('The dog sat. Then it slept.'),
      generation('```markdown\nThe fox sat. Then it slept.\n```'),
      generation('The owl sat. Then it slept.'),
      { text: 'Three animals to choose from.', usage },
    ]);
    startAnthropicAgent(model);
    const run = await waitForState(server, sent.body.runId, 'review', 20_000);

    const bodies = model.requests.map((request) => request.body);
    expect(bodies.map(isGeneration)).toEqual([false, false, true, true, true, false]);
    expect(userText(bodies[0])).toContain('"variantsWanted": 3');
    const generations = bodies.filter(isGeneration);
    for (const body of generations) {
      expect(body.messages).toHaveLength(1);
      expect(userText(body)).toContain('Instruction: Try other animals');
      expect(userText(body)).toContain('<block-markdown>\nThe cat sat. Then it slept.\n</block-markdown>');
      expect(userText(body)).not.toContain('FORGED');
    }
    expect(outAtAnswer).toEqual([3, 3, 3]);

    const candidates = run.items[0].variants.map((variant) => variant.markdown);
    expect([...candidates].sort()).toEqual(['The dog sat. Then it slept.', 'The fox sat. Then it slept.', 'The owl sat. Then it slept.']);
    expect(run.items[0]).toMatchObject({ outcome: 'changed', chosen: 0 });
    expect(await markdownOf(server, doc.id)).toBe(`${candidates[0]}\n\nOther text.`);
    // Six requests of 40 in and 8 out.
    expect(run.usage).toMatchObject({ inputTokens: 6 * 40, outputTokens: 6 * 8 });
  });

  it('[VAR4] sends nothing when one generation comes back empty, and says so to the model', async () => {
    const doc = await createDoc(server, 'The cat sat.');
    const blockId = doc.blocks[0].id;
    const made = await server.api(`/api/docs/${doc.id}/annotations`, { method: 'POST', body: { kind: 'instruction', blockId, text: 'Other animals', variants: 2 } });
    const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    const model = await startFakeAnthropic([
      { toolCalls: [{ name: 'read_block', input: { blockId } }] },
      { toolCalls: [{ name: 'rewrite_variants', input: { instructionId: made.body.id, blockId, instruction: 'Other animals' } }] },
      { text: 'The dog sat.' },
      { text: '```\n\n```' },
      { text: 'One came back empty.' },
    ]);
    startAnthropicAgent(model);
    const run = await waitForState(server, sent.body.runId, 'review', 20_000);
    const answer = model.requests[4].body.messages.at(-1)?.content;
    expect(JSON.stringify(answer)).toContain('EMPTY_REWRITE');
    expect(run.changes).toEqual([]);
    expect(run.items[0].variants).toEqual([]);
    expect(await markdownOf(server, doc.id)).toBe('The cat sat.');
  });
});
