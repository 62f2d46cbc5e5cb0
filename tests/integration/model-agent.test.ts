import { afterEach, describe, expect, it } from 'vitest';
import { startModelAgent, modelAgentName } from '../../agents/model/model-agent.ts';
import { openAiProvider } from '../../agents/model/openai-provider.ts';
import type { RunningAgent } from '../../agents/reference/reference-agent.ts';
import type { OpKind } from '../../shared/applier/op-kinds.ts';
import { startFakeOpenAi, type ChatRequestBody, type FakeOpenAi, type FakeStep } from '../helpers/fake-openai.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { connectPeer, roundTrip } from '../helpers/peer.ts';
import { createDoc, instruct, markdownOf, sentRun, waitForState } from '../helpers/runs.ts';
import { waitFor } from '../helpers/peer.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { anchorFromRange } from '../../shared/model/anchors.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { createAnnotation } from '../../shared/notes/annotations-writers.ts';

/*
 * The model agent end to end: the real server and its agent API, the official OpenAI SDK, and
 * a scripted OpenAI-compatible server that streams its answers as a real one does.
 */

const server = useTestServer();
const markdown = 'alpha\n\nbeta\n\ngamma';

let model: FakeOpenAi | null = null;
let agent: RunningAgent | null = null;
let messages: string[] = [];

afterEach(async () => {
  await agent?.stop();
  await model?.close();
  agent = null;
  model = null;
});

async function startAgent(
  script: FakeStep[],
  options: { ops?: OpKind[]; apiKey?: string; maxTurns?: number; callTimeoutMs?: number } = {},
): Promise<FakeOpenAi> {
  model = await startFakeOpenAi(script);
  messages = [];
  const token = server.token('agent', { sub: 'model-agent', name: modelAgentName, ops: options.ops });
  const provider = openAiProvider({ baseURL: model.baseURL, apiKey: options.apiKey ?? 'sk-test', model: 'fake-model', callTimeoutMs: options.callTimeoutMs ?? 10_000 });
  agent = startModelAgent({ url: server.url, token, provider, pollSeconds: 2, maxTurns: options.maxTurns, log: (message) => messages.push(message) });
  return model;
}

/** The answers of the tool calls in a recorded request, parsed. */
function toolAnswers(body: ChatRequestBody): unknown[] {
  return body.messages.filter((message) => message.role === 'tool').map((message) => JSON.parse(message.content ?? 'null'));
}

describe('the model agent', () => {
  it('[MODEL1] [MODEL5] reads the document, replaces a block, and puts the run in review with the model\'s summary', async () => {
    const doc = await sentRun(server, markdown, ['Make it louder', 'Leave it']);
    const [first] = doc.instructionIds;
    const fake = await startAgent([
      { toolCalls: [{ name: 'read_document', arguments: {} }] },
      { toolCalls: [{ name: 'replace_block', arguments: { instructionId: first, blockId: doc.blocks[0].id, markdown: 'ALPHA!' } }] },
      { text: 'Made the first paragraph louder.' },
    ]);
    const run = await waitForState(server, doc.runId, 'review', 15_000);
    expect(await markdownOf(server, doc.docId)).toBe('ALPHA!\n\nbeta\n\ngamma');
    expect(run.summary).toBe('Made the first paragraph louder.');
    expect(run.items.map((item) => item.outcome)).toEqual(['changed', 'unchanged']);
    expect(run.claimedBy).toEqual({ id: 'model-agent', name: modelAgentName });

    const firstRequest = fake.requests[0].body;
    expect(firstRequest.stream).toBe(true);
    expect(firstRequest.model).toBe('fake-model');
    expect(firstRequest.messages[0].role).toBe('system');
    expect(firstRequest.messages[0].content).toMatch(/never instructions to you/);
    const prompt = firstRequest.messages[1].content ?? '';
    expect(prompt).toContain('<run-items>');
    for (const [index, id] of doc.instructionIds.entries()) {
      expect(prompt).toContain(JSON.stringify(id));
      expect(prompt).toContain(JSON.stringify(doc.blocks[index].id));
      expect(prompt).toContain(JSON.stringify(['Make it louder', 'Leave it'][index]));
      expect(prompt).toContain(`"quote": ${JSON.stringify(['alpha', 'beta'][index])}`);
    }
    expect(firstRequest.tools?.map((tool) => tool.function.name)).toEqual([
      'read_document', 'read_block', 'replace_block', 'insert_after', 'delete_block', 'rewrite_block', 'refuse',
    ]);
    expect(JSON.stringify(firstRequest.tools?.[2].function.parameters)).toContain('"required":["instructionId","blockId","markdown"]');
    // The document read comes back without hashes; the write answers ok.
    expect(toolAnswers(fake.requests[1].body)).toEqual([
      { blocks: doc.blocks.map(({ id, parentId, type, markdown }) => ({ id, parentId, type, markdown })) },
    ]);
    expect(toolAnswers(fake.requests[2].body)[1]).toEqual({ ok: true });
  });

  it('[MODEL3] keeps an instruction either changed or refused: a refuse after a change, and a change after a refuse, answer an error', async () => {
    const doc = await sentRun(server, markdown, ['Make it louder', 'Leave it']);
    const [first, second] = doc.instructionIds;
    const fake = await startAgent([
      { toolCalls: [{ name: 'read_document', arguments: {} }] },
      {
        toolCalls: [
          { name: 'replace_block', arguments: { instructionId: first, blockId: doc.blocks[0].id, markdown: 'ALPHA!' } },
          { name: 'refuse', arguments: { instructionId: first, reason: 'Actually no.' } },
          { name: 'refuse', arguments: { instructionId: second, reason: 'Nothing to do.' } },
          { name: 'replace_block', arguments: { instructionId: second, blockId: doc.blocks[1].id, markdown: 'BETA!' } },
          { name: 'delete_block', arguments: { instructionId: second, blockId: doc.blocks[1].id } },
        ],
      },
      { text: 'Louder, and left the rest.' },
    ]);
    const run = await waitForState(server, doc.runId, 'review', 15_000);
    expect(toolAnswers(fake.requests[2].body).slice(1)).toEqual([
      { ok: true },
      { error: { code: 'ALREADY_CHANGED', message: expect.stringContaining(first) } },
      { ok: true },
      { error: { code: 'ALREADY_REFUSED', message: expect.stringContaining(second) } },
      { error: { code: 'ALREADY_REFUSED', message: expect.stringContaining(second) } },
    ]);
    expect(await markdownOf(server, doc.docId)).toBe('ALPHA!\n\nbeta\n\ngamma');
    expect(run.items.map(({ outcome, reason }) => [outcome, reason])).toEqual([
      ['changed', null],
      ['refused', 'Nothing to do.'],
    ]);
  });

  it('[MODEL2] answers READ_FIRST to a write on a block not read in this run, and changes nothing', async () => {
    const doc = await sentRun(server, markdown, ['Make it louder']);
    const fake = await startAgent([
      { toolCalls: [{ name: 'replace_block', arguments: { instructionId: doc.instructionIds[0], blockId: doc.blocks[0].id, markdown: 'ALPHA' } }] },
      { text: 'I could not change it.' },
    ]);
    const run = await waitForState(server, doc.runId, 'review', 15_000);
    expect(toolAnswers(fake.requests[1].body)).toEqual([{ error: { code: 'READ_FIRST', message: expect.stringContaining(doc.blocks[0].id) } }]);
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
    expect(run.changes).toEqual([]);
    expect(run.items[0].outcome).toBe('unchanged');
  });

  it('[MODEL2] relays a block changed since it was read as STALE_BLOCK, and wants it read again', async () => {
    const doc = await sentRun(server, markdown, ['Make it louder']);
    const person = server.track(connectPeer({ wsUrl: server.wsUrl, name: doc.docId, token: server.token('editor') }));
    await person.synced;
    const [instructionId] = doc.instructionIds;
    const blockId = doc.blocks[0].id;
    const replace = { name: 'replace_block', arguments: { instructionId, blockId, markdown: 'ALPHA' } };
    const fake = await startAgent([
      { toolCalls: [{ name: 'read_block', arguments: { blockId } }] },
      async () => {
        // A person types in the block after the model read it, before it writes.
        appendToBlock(person.ydoc, 0, ' typed');
        await roundTrip(person);
        return { toolCalls: [replace] };
      },
      { toolCalls: [replace] },
      { toolCalls: [{ name: 'read_block', arguments: { blockId } }, replace] },
      { text: 'Made it louder.' },
    ]);
    await waitForState(server, doc.runId, 'review', 15_000);
    const answers = fake.requests.map((request) => toolAnswers(request.body).at(-1));
    expect(answers[1]).toEqual({ id: blockId, type: 'paragraph', markdown: 'alpha' });
    expect(answers[2]).toEqual({ error: { code: 'STALE_BLOCK', message: expect.stringMatching(/read it again\.$/) } });
    expect(answers[3]).toEqual({ error: { code: 'READ_FIRST', message: expect.any(String) } });
    expect(toolAnswers(fake.requests[4].body).slice(-2)).toEqual([{ id: blockId, type: 'paragraph', markdown: 'alpha typed' }, { ok: true }]);
    expect(await markdownOf(server, doc.docId)).toBe('ALPHA\n\nbeta\n\ngamma');
  });

  it('[MODEL3] refuse marks the instruction refused with the model\'s reason', async () => {
    const doc = await sentRun(server, markdown, ['Translate it into Klingon']);
    await startAgent([
      { toolCalls: [{ name: 'refuse', arguments: { instructionId: doc.instructionIds[0], reason: 'I do not know Klingon.' } }] },
      { text: 'Refused one instruction.' },
    ]);
    const run = await waitForState(server, doc.runId, 'review', 15_000);
    expect(run.items[0]).toMatchObject({ outcome: 'refused', reason: 'I do not know Klingon.' });
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
  });

  it('[MODEL3] [MODEL7] offers a token limited to replace_block only the read tools, replace_block, rewrite_block and refuse', async () => {
    const doc = await sentRun(server, markdown, ['Make it louder']);
    const fake = await startAgent([
      { toolCalls: [{ name: 'delete_block', arguments: { instructionId: doc.instructionIds[0], blockId: doc.blocks[0].id } }] },
      { text: 'Done.' },
    ], { ops: ['replace_block'] });
    await waitForState(server, doc.runId, 'review', 15_000);
    expect(fake.requests[0].body.tools?.map((tool) => tool.function.name)).toEqual(['read_document', 'read_block', 'replace_block', 'rewrite_block', 'refuse']);
    expect(fake.requests[0].body.messages[0].content).toMatch(/not allowed to use insert_after, delete_block/);
    expect(toolAnswers(fake.requests[1].body)).toEqual([{ error: { code: 'UNKNOWN_TOOL', message: expect.any(String) } }]);
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
  });

  it('[MODEL5] fails the run with an actionable message when the model server answers 401', async () => {
    const doc = await sentRun(server, markdown, ['Make it louder']);
    const fake = await startAgent([{ status: 401, error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } }], { apiKey: 'sk-wrong' });
    const run = await waitForState(server, doc.runId, 'failed', 15_000);
    expect(run.error).toBe(`The model agent stopped: The model server at ${fake.baseURL} answered 401: check OPENAI_API_KEY.`);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].headers.authorization).toBe('Bearer sk-wrong');
  });

  it('[MODEL5] fails the run, taking its changes back, when the model has not finished within its turns', async () => {
    const doc = await sentRun(server, markdown, ['Make it louder']);
    const blockId = doc.blocks[0].id;
    const fake = await startAgent([
      { toolCalls: [{ name: 'read_block', arguments: { blockId } }] },
      { toolCalls: [{ name: 'replace_block', arguments: { instructionId: doc.instructionIds[0], blockId, markdown: 'ALPHA' } }] },
      { text: 'never asked' },
    ], { maxTurns: 2 });
    const run = await waitForState(server, doc.runId, 'failed', 15_000);
    expect(run.error).toMatch(/^The model agent stopped: The model did not finish within 2 turns/);
    expect(fake.requests).toHaveLength(2);
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
  });

  it('[MODEL5] fails the run, saying so, when a model call outlasts its timeout', async () => {
    const doc = await sentRun(server, markdown, ['Make it louder']);
    const fake = await startAgent([() => new Promise(() => {})], { callTimeoutMs: 300 });
    const run = await waitForState(server, doc.runId, 'failed', 15_000);
    expect(run.error).toBe(`The model agent stopped: The model server at ${fake.baseURL} did not answer within 300 ms.`);
  });

  it('[MODEL1] [RUN5] gives the model the text at sending of an instruction whose pinned text changed', async () => {
    const doc = await createDoc(server, markdown);
    const drifted = await instruct(server, doc.id, doc.blocks[0].id, 'Make it louder');
    const kept = await instruct(server, doc.id, doc.blocks[1].id, 'Leave it');
    const person = server.track(connectPeer({ wsUrl: server.wsUrl, name: doc.id, token: server.token('editor') }));
    await person.synced;
    appendToBlock(person.ydoc, 0, ' and more');
    await waitFor(async () => (await markdownOf(server, doc.id)).startsWith('alpha and more'));
    const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    const fake = await startAgent([{ text: 'Nothing done.' }]);
    await waitForState(server, sent.body.runId, 'review', 15_000);
    const prompt = fake.requests[0].body.messages[1].content ?? '';
    const items = JSON.parse(/<run-items>\n([\s\S]*)\n<\/run-items>/.exec(prompt)?.[1] ?? '[]');
    expect(items).toEqual([
      { instructionId: drifted, instruction: 'Make it louder', targetBlockId: doc.blocks[0].id, quote: 'alpha', currentText: 'alpha and more' },
      { instructionId: kept, instruction: 'Leave it', targetBlockId: doc.blocks[1].id, quote: 'beta' },
    ]);
  });

  it('[MODEL1] [MODEL2] tells the model the pinned part of a block and its block id, and makes it read the block before it writes', async () => {
    const doc = await createDoc(server, 'Mine are these five words. Theirs is **another** sentence.');
    const [block] = doc.blocks;
    const ann = { id: 'ann', name: 'Ann' };
    const token = server.token('editor', { sub: ann.id, name: ann.name });
    const text = server.track(connectPeer({ wsUrl: server.wsUrl, name: docName(doc.id), token }));
    const notes = server.track(connectPeer({ wsUrl: server.wsUrl, name: docName(doc.id, 'notes'), token }));
    await Promise.all([text.synced, notes.synced]);
    const at = 1 + 'Mine are '.length;
    const made = createAnnotation(notes.ydoc, { kind: 'instruction', ...anchorFromRange(text.ydoc, at, at + 'these five words'.length), author: ann, text: 'Make it louder', now: Date.now() });
    if (!made.ok) throw new Error(made.error.message);
    await roundTrip(notes);
    const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    expect(sent.status).toBe(201);
    const louder = 'Mine are THESE FIVE WORDS. Theirs is **another** sentence.';
    const fake = await startAgent([
      { toolCalls: [{ name: 'replace_block', arguments: { instructionId: made.id, blockId: block.id, markdown: louder } }] },
      { toolCalls: [{ name: 'read_block', arguments: { blockId: block.id } }] },
      { toolCalls: [{ name: 'replace_block', arguments: { instructionId: made.id, blockId: block.id, markdown: louder } }] },
      { text: 'Made the pinned words louder.' },
    ]);
    await waitForState(server, sent.body.runId, 'review', 15_000);
    expect(await markdownOf(server, doc.id)).toBe(louder);

    const first = fake.requests[0].body;
    expect(first.messages[0].content).toContain('when the quote is only part of its target block, change that part and keep the rest of the block');
    const items = JSON.parse(/<run-items>\n([\s\S]*)\n<\/run-items>/.exec(first.messages[1].content ?? '')?.[1] ?? '[]');
    expect(items).toEqual([{ instructionId: made.id, instruction: 'Make it louder', targetBlockId: block.id, quote: 'these five words' }]);
    expect(toolAnswers(fake.requests[1].body)).toEqual([{ error: { code: 'READ_FIRST', message: expect.stringContaining(block.id) } }]);
    expect(toolAnswers(fake.requests[2].body)[1]).toEqual({ id: block.id, type: 'paragraph', markdown: block.markdown });
    expect(toolAnswers(fake.requests[3].body)[2]).toEqual({ ok: true });
  });
});
