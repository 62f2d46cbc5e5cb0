import { afterEach, describe, expect, it } from 'vitest';
import { startTestModelAgent, toolAnswers, type TestModelAgent } from '../helpers/model-agent.ts';
import { markdownOf, sentRun, waitForState } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * What a model run may spend (MODEL9): retries on 429 and 5xx, the token budget, the timeout
 * of a call, and the failures a person reads.
 */

const server = useTestServer();
const markdown = 'alpha\n\nbeta';
let running: TestModelAgent | null = null;

afterEach(async () => {
  await running?.stop();
  running = null;
});

/** Waits so long that a run depending on them could not finish within the test's timeout. */
const neverWaitOnYourOwn = { retryBaseDelayMs: 600_000, retryMaxDelayMs: 600_000 };

describe('the model agent\'s limits', () => {
  it('[MODEL9] tries a call again after a 429 when its retry-after (in seconds) has passed', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    running = await startTestModelAgent(
      server,
      [
        { status: 429, error: { message: 'Rate limit reached', code: 'rate_limit_exceeded' }, headers: { 'retry-after': '0' } },
        { text: 'Nothing to do.' },
      ],
      { limits: neverWaitOnYourOwn },
    );
    const run = await waitForState(server, doc.runId, 'review', 15_000);
    expect(run.summary).toBe('Nothing to do.');
    expect(running.model.requests).toHaveLength(2);
    expect(running.model.requests[1].body).toEqual(running.model.requests[0].body);
    expect(run.activity.map((line) => line.text)).toContain('429 from the model server: trying again in 0 ms (retry 1 of 3)');
  });

  it('[MODEL9] honours a retry-after given as an HTTP date', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    const past = new Date(Date.now() - 60_000).toUTCString();
    running = await startTestModelAgent(
      server,
      [{ status: 503, error: { message: 'Overloaded' }, headers: { 'retry-after': past } }, { text: 'Done.' }],
      { limits: neverWaitOnYourOwn },
    );
    await waitForState(server, doc.runId, 'review', 15_000);
    expect(running.model.requests).toHaveLength(2);
  });

  it('[MODEL9] tries a call again after a 500, with its own backoff, and the run goes on', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    const blockId = doc.blocks[0].id;
    running = await startTestModelAgent(
      server,
      [
        { toolCalls: [{ name: 'read_block', arguments: { blockId } }] },
        { status: 500, error: { message: 'The server had an error' } },
        { toolCalls: [{ name: 'replace_block', arguments: { instructionId: doc.instructionIds[0], blockId, markdown: 'ALPHA' } }] },
        { text: 'Uppercased it.' },
      ],
      { limits: { retryBaseDelayMs: 1, retryMaxDelayMs: 1 } },
    );
    const run = await waitForState(server, doc.runId, 'review', 15_000);
    expect(await markdownOf(server, doc.docId)).toBe('ALPHA\n\nbeta');
    expect(running.model.requests[2].body).toEqual(running.model.requests[1].body);
    expect(run.activity.map((line) => line.text)).toContain('500 from the model server: trying again in 1 ms (retry 1 of 3)');
  });

  it('[MODEL5] [MODEL9] fails the run with the last answer once the retries are spent', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    const busy = { status: 503, error: { message: 'Overloaded' } };
    running = await startTestModelAgent(server, [busy, busy, { text: 'never asked' }], { limits: { retries: 1, retryBaseDelayMs: 1, retryMaxDelayMs: 1 } });
    const run = await waitForState(server, doc.runId, 'failed', 15_000);
    expect(run.error).toBe(`The model agent stopped: The model server at ${running.model.baseURL} answered 503: see the model server's log.`);
    expect(running.model.requests).toHaveLength(2);
  });

  it('[MODEL9] does not try again after a 401', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    running = await startTestModelAgent(server, [{ status: 401, error: { message: 'Incorrect API key provided' } }, { text: 'never asked' }], {
      limits: { retryBaseDelayMs: 1 },
    });
    const run = await waitForState(server, doc.runId, 'failed', 15_000);
    expect(run.error).toBe(`The model agent stopped: The model server at ${running.model.baseURL} answered 401: check OPENAI_API_KEY.`);
    expect(running.model.requests).toHaveLength(1);
  });

  it('[MODEL9] fails the run, taking its changes back, once its tokens are spent', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    const blockId = doc.blocks[0].id;
    const usage = { promptTokens: 100, completionTokens: 20 };
    running = await startTestModelAgent(
      server,
      [
        { toolCalls: [{ name: 'read_block', arguments: { blockId } }], usage },
        { toolCalls: [{ name: 'replace_block', arguments: { instructionId: doc.instructionIds[0], blockId, markdown: 'ALPHA' } }], usage },
        { toolCalls: [{ name: 'read_block', arguments: { blockId } }], usage },
        { text: 'never asked' },
      ],
      { limits: { maxTokensPerRun: 300 } },
    );
    const run = await waitForState(server, doc.runId, 'failed', 15_000);
    expect(run.error).toBe(
      'The model agent stopped: The run used 360 tokens, its budget is 300 (TANDEM_MAX_TOKENS_PER_RUN); its changes are taken back. ' +
        'Send fewer instructions at a time, or raise TANDEM_MAX_TOKENS_PER_RUN.',
    );
    // The write of the second turn was made, and taken back with the run.
    expect(toolAnswers(running.model.requests[2].body).at(-1)).toEqual({ ok: true });
    expect(running.model.requests).toHaveLength(3);
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
    expect(run.usage).toEqual({ inputTokens: 300, outputTokens: 60, cachedInputTokens: 0 });
  });

  it('[MODEL5] [MODEL9] fails the run when a call outlasts TANDEM_MODEL_TIMEOUT_MS, without trying again', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    running = await startTestModelAgent(server, [() => new Promise(() => {}), { text: 'never asked' }], { callTimeoutMs: 300 });
    const run = await waitForState(server, doc.runId, 'failed', 15_000);
    expect(run.error).toBe(`The model agent stopped: The model server at ${running.model.baseURL} did not answer within 300 ms.`);
    expect(running.model.requests).toHaveLength(1);
  });

  it('[MODEL9] fails the run when the answer\'s stream stalls after its first chunk, past TANDEM_MODEL_TIMEOUT_MS', async () => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    running = await startTestModelAgent(server, [{ stall: true }, { text: 'never asked' }], { callTimeoutMs: 300 });
    const run = await waitForState(server, doc.runId, 'failed', 15_000);
    expect(run.error).toBe(`The model agent stopped: The model server at ${running.model.baseURL} did not answer within 300 ms.`);
    expect(running.model.requests).toHaveLength(1);
  });
});
