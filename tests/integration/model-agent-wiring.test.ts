import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../server/cli.ts';
import { startModelAgent } from '../../agents/model/model-agent.ts';
import { defaultRunLimits } from '../../agents/model/model-settings.ts';
import { openAiProvider } from '../../agents/model/openai-provider.ts';
import type { RunningAgent } from '../../agents/reference/reference-agent.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.ts';
import { spawnAgentCommand } from '../helpers/agents.ts';
import { markdownOf, sentRun, waitForState } from '../helpers/runs.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/*
 * How the model agent is started: in the server's process (`TANDEM_AGENT=openai`, as
 * `npm start` runs it) and as its own process (`tandem agent --model openai:NAME`).
 */

const markdown = 'alpha\n\nbeta';

let model: FakeOpenAi | null = null;
let server: TestServer | null = null;
let agent: RunningAgent | null = null;

afterEach(async () => {
  await agent?.stop();
  agent = null;
  await server?.dispose();
  await model?.close();
  server = null;
  model = null;
});

/** A fake model that reads `blockId`, replaces it for `instructionId`, and sums up. */
async function fakeModel(blockId: string, instructionId: string): Promise<FakeOpenAi> {
  model = await startFakeOpenAi([
    { toolCalls: [{ name: 'read_block', arguments: { blockId } }] },
    { toolCalls: [{ name: 'replace_block', arguments: { instructionId, blockId, markdown: 'ALPHA' } }] },
    { text: 'Uppercased the first paragraph.' },
  ]);
  return model;
}

describe('the model agent', () => {
  it('[MODEL4] runs in the server\'s process with TANDEM_AGENT=openai', async () => {
    // A port that served a model a moment ago and now refuses connections.
    model = await startFakeOpenAi([]);
    const modelUrl = model.baseURL;
    await model.close();
    server = await startTestServer({ agent: 'openai', openai: { baseURL: modelUrl, apiKey: '', model: 'fake-model', callTimeoutMs: 10_000 } });
    const doc = await sentRun(server, markdown, ['uppercase']);
    const run = await waitForState(server, doc.runId, 'failed', 15_000);
    expect(run.error).toBe(`The model agent stopped: Could not reach the model server at ${modelUrl}: check OPENAI_BASE_URL and that the server is running.`);
    expect(run.claimedBy).toEqual({ id: 'model-agent', name: 'Model agent' });
  });

  it('[MODEL4] [MODEL9] runs in the server\'s process with the server\'s limits of model runs', async () => {
    const readAgain = { toolCalls: [{ name: 'read_document', arguments: {} }] };
    const fake = (model = await startFakeOpenAi([readAgain, readAgain, { text: 'never asked' }]));
    server = await startTestServer({
      agent: 'openai',
      openai: { baseURL: fake.baseURL, apiKey: '', model: 'fake-model', callTimeoutMs: 10_000 },
      modelLimits: { ...defaultRunLimits, maxTurns: 2 },
    });
    const doc = await sentRun(server, markdown, ['uppercase']);
    const run = await waitForState(server, doc.runId, 'failed', 15_000);
    expect(run.error).toMatch(/^The model agent stopped: The model did not finish within 2 turns/);
    expect(fake.requests).toHaveLength(2);
  });

  it('[MODEL4] runs as its own process with `tandem agent --model openai:NAME`, served by OPENAI_BASE_URL', async () => {
    server = await startTestServer();
    const doc = await sentRun(server, markdown, ['uppercase']);
    const fake = await fakeModel(doc.blocks[0].id, doc.instructionIds[0]);
    const token = server.token('agent', { sub: 'cli-model-agent', name: 'Model agent' });
    const agent = spawnAgentCommand(['--url', server.url, '--token', token, '--model', 'openai:fake-model'], { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: '', TANDEM_MODEL: '' });
    let exitCode: number | null;
    try {
      const run = await waitForState(server, doc.runId, 'review', 20_000);
      expect(run.summary).toBe('Uppercased the first paragraph.');
      expect(await markdownOf(server, doc.docId)).toBe('ALPHA\n\nbeta');
      expect(fake.requests[0].body.model).toBe('fake-model');
      // OPENAI_API_KEY empty: a local server that asks for no key gets no Authorization header.
      expect(fake.requests[0].headers.authorization).toBeUndefined();
      expect(agent.output()).toContain(`Model agent (openai:fake-model at ${fake.baseURL}) working for ${server.url}`);
    } finally {
      exitCode = await agent.interrupt();
    }
    expect(exitCode).toBe(0);
  });

  it('[MODEL4] stops a run at once when its lease is lost, and sends nothing more for that claim', async () => {
    const leaseMs = 30_000;
    let ahead = 0;
    const live = (server = await startTestServer({ leaseMs, leaseClock: () => Date.now() + ahead }));
    const doc = await sentRun(live, markdown, ['uppercase']);
    const blockId = doc.blocks[0].id;
    const fake = (model = await startFakeOpenAi([
      { toolCalls: [{ name: 'read_block', arguments: { blockId } }] },
      async () => {
        // While the model "thinks", the lease runs out and the run goes back to the queue.
        ahead += leaseMs + 1;
        await waitForState(live, doc.runId, 'queued', 10_000);
        return { toolCalls: [{ name: 'replace_block', arguments: { instructionId: doc.instructionIds[0], blockId, markdown: 'ALPHA' } }] };
      },
      { text: 'Nothing to change.' },
    ]));
    const log: string[] = [];
    const token = live.token('agent', { sub: 'model-agent', name: 'Model agent' });
    const provider = openAiProvider({ baseURL: fake.baseURL, apiKey: '', model: 'fake-model', callTimeoutMs: 10_000 });
    agent = startModelAgent({ url: live.url, token, provider, pollSeconds: 1, log: (message) => log.push(message) });
    // The agent claims the requeued run afresh; the model is asked from the start, not for more of the lost claim.
    const run = await waitForState(live, doc.runId, 'review', 20_000);
    expect(run.summary).toBe('Nothing to change.');
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests[2].body.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(run.changes).toEqual([]);
    expect(await markdownOf(live, doc.docId)).toBe(markdown);
    expect(log.filter((line) => line.startsWith(`run ${doc.runId} left: `))).toHaveLength(1);
    expect(log.filter((line) => line.includes('failed'))).toEqual([]);
  });

  it.each([
    [['agent', '--url', 'http://127.0.0.1:1', '--token', 't', '--model', 'gemini:pro'], '--model must be openai:NAME'],
    [['agent', '--url', 'http://127.0.0.1:1', '--token', 't', '--model', 'openai:'], "--model needs the model's name"],
  ])('refuses `tandem %s` with exit code 2', async (args, message) => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    let code: number | null;
    try {
      code = await main(args);
    } finally {
      spy.mockRestore();
    }
    expect(code).toBe(2);
    expect(written.join('')).toContain(message);
  });
});
