import { afterEach, describe, expect, it } from 'vitest';
import { startModelAgent, modelAgentName } from '../../agents/model/model-agent.ts';
import { anthropicProvider } from '../../agents/model/anthropic-provider.ts';
import type { RunningAgent } from '../../agents/reference/reference-agent.ts';
import { startFakeAnthropic, type ContentBlockParam, type FakeAnthropic, type FakeAnthropicStep, type MessagesRequestBody } from '../helpers/fake-anthropic.ts';
import { spawnAgentCommand } from '../helpers/agents.ts';
import { markdownOf, sentRun, waitForState } from '../helpers/runs.ts';
import { startTestServer } from '../helpers/server.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * The model agent over Anthropic's Messages API end to end: the real server and its agent API,
 * the official Anthropic SDK, and a scripted Messages API server that streams its answers as
 * the real one does.
 */

const server = useTestServer();
const markdown = 'alpha\n\nbeta\n\ngamma';

let model: FakeAnthropic | null = null;
let agent: RunningAgent | null = null;

afterEach(async () => {
  await agent?.stop();
  await model?.close();
  agent = null;
  model = null;
});

async function startAgent(script: FakeAnthropicStep[], apiKey = 'sk-ant-test'): Promise<FakeAnthropic> {
  model = await startFakeAnthropic(script);
  const token = server.token('agent', { sub: 'model-agent', name: modelAgentName });
  const provider = anthropicProvider({ baseURL: model.baseURL, apiKey, model: 'claude-fake', callTimeoutMs: 10_000 });
  agent = startModelAgent({ url: server.url, token, provider, pollSeconds: 2 });
  return model;
}

/** The `tool_result` blocks of a recorded request, in order. */
function toolResults(body: MessagesRequestBody): Extract<ContentBlockParam, { type: 'tool_result' }>[] {
  return body.messages.flatMap((message) =>
    message.role === 'user' && Array.isArray(message.content)
      ? message.content.filter((block): block is Extract<ContentBlockParam, { type: 'tool_result' }> => block.type === 'tool_result')
      : [],
  );
}

describe('the model agent over the Anthropic Messages API', () => {
  it('[MODEL1] [MODEL6] reads the document, replaces a block, and puts the run in review with the model\'s summary', async () => {
    const doc = await sentRun(server, markdown, ['Make it louder', 'Leave it']);
    const [first] = doc.instructionIds;
    const fake = await startAgent([
      { text: 'Reading first.', toolCalls: [{ name: 'read_document', input: {} }] },
      { toolCalls: [{ name: 'replace_block', input: { instructionId: first, blockId: doc.blocks[0].id, markdown: 'ALPHA!' } }] },
      { text: 'Made the first paragraph louder.' },
    ]);
    const run = await waitForState(server, doc.runId, 'review', 15_000);
    expect(await markdownOf(server, doc.docId)).toBe('ALPHA!\n\nbeta\n\ngamma');
    expect(run.summary).toBe('Made the first paragraph louder.');
    expect(run.items.map((item) => item.outcome)).toEqual(['changed', 'unchanged']);

    const { headers, body } = fake.requests[0];
    expect(headers.authorization).toBe('Bearer sk-ant-test');
    expect(body.stream).toBe(true);
    expect(body.model).toBe('claude-fake');
    expect(body.max_tokens).toBeGreaterThan(0);
    expect(body.system).toMatch(/never instructions to you/);
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0].role).toBe('user');
    const prompt = String(body.messages[0].content);
    expect(prompt).toContain('<run-items>');
    expect(prompt).toContain(JSON.stringify('Make it louder'));
    expect(prompt).toContain(JSON.stringify(first));
    expect(body.tools?.map((tool) => tool.name)).toEqual(['read_document', 'read_block', 'replace_block', 'insert_after', 'delete_block', 'rewrite_block', 'refuse']);
    expect(JSON.stringify(body.tools?.[2].input_schema)).toContain('"required":["instructionId","blockId","markdown"]');

    // The model's turn goes back as text and tool_use; the tool's answer as a tool_result naming its call.
    const second = fake.requests[1].body;
    expect(second.messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Reading first.' }, { type: 'tool_use', id: 'toolu_1', name: 'read_document', input: {} }],
    });
    expect(second.messages[2].role).toBe('user');
    const [read] = toolResults(second);
    expect(read.tool_use_id).toBe('toolu_1');
    expect(JSON.parse(read.content)).toEqual({ blocks: doc.blocks.map(({ id, parentId, type, markdown }) => ({ id, parentId, type, markdown })) });
    const write = toolResults(fake.requests[2].body)[1];
    expect(write.tool_use_id).toBe('toolu_2');
    expect(JSON.parse(write.content)).toEqual({ ok: true });
  });

  it('[MODEL6] answers several tool calls of one turn in one user message of tool_result blocks', async () => {
    const doc = await sentRun(server, markdown, ['Make it louder']);
    const fake = await startAgent([
      { toolCalls: [{ name: 'read_block', input: { blockId: doc.blocks[0].id } }, { name: 'read_block', input: { blockId: doc.blocks[1].id } }] },
      { text: 'Read two blocks.' },
    ]);
    await waitForState(server, doc.runId, 'review', 15_000);
    const body = fake.requests[1].body;
    expect(body.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(toolResults(body).map((block) => [block.tool_use_id, JSON.parse(block.content).markdown])).toEqual([['toolu_1', 'alpha'], ['toolu_2', 'beta']]);
  });

  it('[MODEL5] fails the run with a message naming ANTHROPIC_API_KEY when the server answers 401', async () => {
    const doc = await sentRun(server, markdown, ['Make it louder']);
    const fake = await startAgent([{ status: 401, error: { type: 'authentication_error', message: 'invalid x-api-key' } }], 'sk-ant-wrong');
    const run = await waitForState(server, doc.runId, 'failed', 15_000);
    expect(run.error).toBe(`The model agent stopped: The model server at ${fake.baseURL} answered 401: check ANTHROPIC_API_KEY.`);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].headers.authorization).toBe('Bearer sk-ant-wrong');
  });

  it('[MODEL4] runs in the server\'s process with TANDEM_AGENT=anthropic, and names ANTHROPIC_BASE_URL when it cannot reach it', async () => {
    // A port that served a model a moment ago and now refuses connections.
    const gone = await startFakeAnthropic([]);
    await gone.close();
    const own = await startTestServer({ agent: 'anthropic', anthropic: { baseURL: gone.baseURL, apiKey: 'sk-ant', model: 'claude-fake', callTimeoutMs: 10_000 } });
    try {
      const doc = await sentRun(own, 'alpha', ['uppercase']);
      const run = await waitForState(own, doc.runId, 'failed', 15_000);
      expect(run.error).toBe(`The model agent stopped: Could not reach the model server at ${gone.baseURL}: check ANTHROPIC_BASE_URL and that the server is running.`);
      expect(run.claimedBy).toEqual({ id: 'model-agent', name: modelAgentName });
    } finally {
      await own.dispose();
    }
  });

  it('[MODEL4] runs as its own process with `tandem agent --model anthropic:NAME`, served by ANTHROPIC_BASE_URL', async () => {
    const doc = await sentRun(server, 'alpha\n\nbeta', ['uppercase']);
    const blockId = doc.blocks[0].id;
    const fake = await startFakeAnthropic([
      { toolCalls: [{ name: 'read_block', input: { blockId } }] },
      { toolCalls: [{ name: 'replace_block', input: { instructionId: doc.instructionIds[0], blockId, markdown: 'ALPHA' } }] },
      { text: 'Uppercased the first paragraph.' },
    ]);
    model = fake;
    const token = server.token('agent', { sub: 'cli-model-agent', name: 'Model agent' });
    const agent = spawnAgentCommand(['--url', server.url, '--token', token, '--model', 'anthropic:claude-fake'], { ANTHROPIC_BASE_URL: fake.baseURL, ANTHROPIC_API_KEY: 'sk-ant-cli', TANDEM_MODEL: '' });
    let exitCode: number | null;
    try {
      const run = await waitForState(server, doc.runId, 'review', 20_000);
      expect(run.summary).toBe('Uppercased the first paragraph.');
      expect(await markdownOf(server, doc.docId)).toBe('ALPHA\n\nbeta');
      expect(fake.requests[0].body.model).toBe('claude-fake');
      expect(fake.requests[0].headers.authorization).toBe('Bearer sk-ant-cli');
      expect(agent.output()).toContain(`Model agent (anthropic:claude-fake at ${fake.baseURL}) working for ${server.url}`);
    } finally {
      exitCode = await agent.interrupt();
    }
    expect(exitCode).toBe(0);
  });

  it('[MODEL7] [MODEL8] rewrites a block with a request without tools, and counts cached input tokens', async () => {
    const doc = await sentRun(server, markdown, ['Shorter']);
    const [instructionId] = doc.instructionIds;
    const blockId = doc.blocks[0].id;
    const usage = { input_tokens: 30, output_tokens: 5, cache_read_input_tokens: 900, cache_creation_input_tokens: 70 };
    const fake = await startAgent([
      { toolCalls: [{ name: 'read_block', input: { blockId } }], usage },
      { toolCalls: [{ name: 'rewrite_block', input: { instructionId, blockId, instruction: 'Shorter' } }], usage },
      { text: 'Alp.', usage },
      { text: 'Shortened it.', usage },
    ]);
    const run = await waitForState(server, doc.runId, 'review', 15_000);
    expect(await markdownOf(server, doc.docId)).toBe('Alp.\n\nbeta\n\ngamma');
    const rewrite = fake.requests[2].body;
    expect(rewrite.tools).toBeUndefined();
    expect(rewrite.system).toMatch(/untrusted data to rewrite/);
    expect(rewrite.messages).toEqual([{ role: 'user', content: expect.stringContaining('<block-markdown>\nalpha\n</block-markdown>') }]);
    expect(run.agent).toEqual({ name: modelAgentName, model: 'claude-fake' });
    expect(run.usage).toEqual({ inputTokens: 4 * 1000, outputTokens: 4 * 5, cachedInputTokens: 4 * 900 });
  });
});
