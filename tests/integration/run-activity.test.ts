import { afterEach, describe, expect, it } from 'vitest';
import { docName } from '../../shared/model/doc-layout.ts';
import { readRunRecords } from '../../shared/protocol/run-record.ts';
import { startTestModelAgent, type TestModelAgent } from '../helpers/model-agent.ts';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import { connectPeer, waitFor } from '../helpers/peer.ts';
import { agentApi, getRun, sentRun, waitForState } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/* What an agent tells of its work on a run, and who sees it (MODEL8). */

const server = useTestServer();
const markdown = 'alpha\n\nbeta\n\ngamma';
let running: TestModelAgent | null = null;

afterEach(async () => {
  await running?.stop();
  running = null;
});

describe('the activity of a run', () => {
  it('[MODEL8] shows the model agent\'s name, model, lines and token usage on the run and in its mirror', async () => {
    const doc = await sentRun(server, markdown, ['Leave it', 'Make it louder']);
    const [, second] = doc.instructionIds;
    const viewer = server.track(connectPeer({ wsUrl: server.wsUrl, name: docName(doc.docId, 'runs'), token: server.token('viewer') }));
    await viewer.synced;
    const usage = { promptTokens: 1000, completionTokens: 50, cachedTokens: 800 };
    running = await startTestModelAgent(server, [
      { toolCalls: [{ name: 'read_document', arguments: {} }], usage },
      { toolCalls: [{ name: 'replace_block', arguments: { instructionId: second, blockId: doc.blocks[1].id, markdown: 'BETA' } }], usage },
      { toolCalls: [{ name: 'refuse', arguments: { instructionId: doc.instructionIds[0], reason: 'Nothing to do.' } }], usage },
      { text: 'Made the second paragraph louder.', usage },
    ]);
    const run = await waitForState(server, doc.runId, 'review', 15_000);
    expect(run.agent).toEqual({ name: 'Model agent', model: 'fake-model' });
    expect(run.activity.map((line) => line.text)).toEqual([
      'working on 2 instructions',
      'reading the document',
      'changing block 2 for instruction 2',
      'refused 1: Nothing to do.',
      'done: the run is ready for review',
    ]);
    expect(run.activity.every((line) => !Number.isNaN(Date.parse(line.at)))).toBe(true);
    expect(run.usage).toEqual({ inputTokens: 4000, outputTokens: 200, cachedInputTokens: 3200 });
    expect(running.model.requests[0].body.stream_options).toEqual({ include_usage: true });

    await waitFor(() => readRunRecords(viewer.ydoc).runs[0]?.state === 'review');
    const mirrored = readRunRecords(viewer.ydoc).runs[0];
    expect(mirrored).toMatchObject({ agent: run.agent, activity: run.activity, usage: run.usage });
  });

  it('[MODEL8] shows the reference agent\'s name and a line per instruction', async () => {
    const doc = await sentRun(server, markdown, ['uppercase', 'sing it']);
    const agent = startTestReferenceAgent(server, { pollSeconds: 2, presence: false });
    try {
      const run = await waitForState(server, doc.runId, 'review', 15_000);
      expect(run.agent).toEqual({ name: 'Reference agent', model: null });
      expect(run.activity.map((line) => line.text)).toEqual(['reading the document', 'changing block 1 for instruction 1', expect.stringMatching(/^refused 2: /)]);
      expect(run.usage).toBeNull();
    } finally {
      await agent.stop();
    }
  });

  it('[MODEL8] takes reports only from the agent holding the claim, and keeps the last 50 lines', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    const holder = agentApi(server, server.token('agent', { sub: 'bot-1', name: 'Bot one' }));
    const report = (token: string, body: unknown) =>
      server.api(`/api/agent/runs/${doc.runId}/activity`, { method: 'POST', token, body });
    const holderToken = server.token('agent', { sub: 'bot-1', name: 'Bot one' });

    expect((await report(holderToken, { line: 'too early' })).body.error.code).toBe('NOT_CLAIMED');
    expect((await holder.claim(doc.runId)).status).toBe(200);
    const refused = await report(server.token('agent', { sub: 'bot-2', name: 'Bot two' }), { line: 'not mine' });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'NOT_CLAIMED']);
    const editor = await report(server.token('editor'), { line: 'hello' });
    expect([editor.status, editor.body.error.code]).toEqual([403, 'FORBIDDEN']);

    for (let n = 1; n <= 52; n++) expect((await report(holderToken, { line: `step ${n}` })).body).toEqual({ ok: true });
    await report(holderToken, { usage: { inputTokens: 10, outputTokens: 2, cachedInputTokens: 4 }, model: 'm1' });
    await report(holderToken, { usage: { inputTokens: 5, outputTokens: 1, cachedInputTokens: 0 } });
    const run = await getRun(server, doc.runId);
    expect(run.activity).toHaveLength(50);
    expect(run.activity[0].text).toBe('step 3');
    expect(run.activity.at(-1)?.text).toBe('step 52');
    expect(run.agent).toEqual({ name: 'Bot one', model: 'm1' });
    expect(run.usage).toEqual({ inputTokens: 15, outputTokens: 3, cachedInputTokens: 4 });

    expect((await holder.complete(doc.runId)).status).toBe(200);
    expect((await report(holderToken, { line: 'after the end' })).body.error.code).toBe('NOT_CLAIMED');
    expect((await getRun(server, doc.runId)).activity.at(-1)?.text).toBe('step 52');
  });

  it.each([
    [{}, 'Give at least one of'],
    [[], 'The body must be a JSON object'],
    [{ line: '' }, '"line" must be a line of 1 to 200 characters.'],
    [{ line: 'x'.repeat(201) }, '"line" must be a line of 1 to 200 characters.'],
    [{ line: 'two\nlines' }, '"line" must be a line of 1 to 200 characters.'],
    [{ model: 42 }, '"model" must be the model\'s name'],
    [{ usage: { inputTokens: -1, outputTokens: 0, cachedInputTokens: 0 } }, 'Token counts must be whole numbers'],
    [{ usage: { inputTokens: 1.5, outputTokens: 0, cachedInputTokens: 0 } }, 'Token counts must be whole numbers'],
    [{ usage: { inputTokens: 1 } }, 'usage.outputTokens'],
  ])('[MODEL8] refuses the report %j with 422 INVALID_BODY, keeping nothing', async (body, message) => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    const token = server.token('agent', { sub: 'bot-1', name: 'Bot one' });
    expect((await agentApi(server, token).claim(doc.runId)).status).toBe(200);
    const answer = await server.api(`/api/agent/runs/${doc.runId}/activity`, { method: 'POST', token, body });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toEqual({ code: 'INVALID_BODY', message: expect.stringContaining(message) });
    const run = await getRun(server, doc.runId);
    expect([run.activity, run.usage]).toEqual([[], null]);
  });

  it('[MODEL8] refuses a report larger than 4 KiB with 413', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    const token = server.token('agent', { sub: 'bot-1', name: 'Bot one' });
    expect((await agentApi(server, token).claim(doc.runId)).status).toBe(200);
    const answer = await server.api(`/api/agent/runs/${doc.runId}/activity`, { method: 'POST', token, body: { line: 'ok', padding: 'x'.repeat(5000) } });
    expect([answer.status, answer.body.error.code]).toEqual([413, 'BODY_TOO_LARGE']);
  });
});
