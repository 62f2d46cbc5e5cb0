import { expect } from 'vitest';
import type { BlockView } from '../../shared/model/doc-content.ts';
import type { RunRecord } from '../../shared/protocol/run-record.ts';
import { waitFor } from './peer.ts';
import type { ApiResponse, TestServer } from './server.ts';

/** What these helpers use of a server: its API (a test server, or one in its own process). */
export type ApiServer = Pick<TestServer, 'api' | 'createDoc'>;

/** Creates a document from Markdown; its id and blocks as the API shows them. */
export async function createDoc(server: ApiServer, markdown: string, title = 'Runs'): Promise<{ id: string; blocks: BlockView[] }> {
  const id = await server.createDoc(title, markdown);
  return { id, blocks: await blocksOf(server, id) };
}

export async function blocksOf(server: ApiServer, docId: string): Promise<BlockView[]> {
  return (await server.api(`/api/docs/${docId}`)).body.blocks;
}

export async function markdownOf(server: ApiServer, docId: string): Promise<string> {
  return (await server.api(`/api/docs/${docId}/markdown`)).body;
}

/** Adds a queued instruction on a block; its id. */
export async function instruct(server: ApiServer, docId: string, blockId: string, text: string): Promise<string> {
  const response = await server.api(`/api/docs/${docId}/annotations`, { method: 'POST', body: { kind: 'instruction', blockId, text } });
  expect(response.status).toBe(201);
  return response.body.id;
}

/** A document with one instruction per entry of `instructions` (on blocks 0, 1, …), sent as one run. */
export async function sentRun(
  server: ApiServer,
  markdown: string,
  instructions: string[],
): Promise<{ docId: string; runId: string; blocks: BlockView[]; instructionIds: string[] }> {
  const doc = await createDoc(server, markdown);
  const instructionIds: string[] = [];
  for (const [index, text] of instructions.entries()) instructionIds.push(await instruct(server, doc.id, doc.blocks[index].id, text));
  const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
  expect(sent.status).toBe(201);
  return { docId: doc.id, runId: sent.body.runId, blocks: doc.blocks, instructionIds };
}

export async function getRun(server: ApiServer, runId: string): Promise<RunRecord> {
  return (await server.api(`/api/runs/${runId}`)).body;
}

export async function waitForState(server: ApiServer, runId: string, state: RunRecord['state'], timeoutMs = 5000): Promise<RunRecord> {
  await waitFor(async () => (await getRun(server, runId)).state === state, timeoutMs);
  return getRun(server, runId);
}

/** An agent route as an agent token sends it. */
export function agentApi(server: ApiServer, token: string) {
  const post = (path: string, body?: unknown): Promise<ApiResponse> => server.api(`/api/agent/runs/${path}`, { method: 'POST', token, body });
  return {
    queued: (query = '?state=queued') => server.api(`/api/agent/runs${query}`, { token }),
    claim: (runId: string) => post(`${runId}/claim`),
    heartbeat: (runId: string) => post(`${runId}/heartbeat`),
    ops: (runId: string, idempotencyKey: string, ops: unknown) => post(`${runId}/ops`, { idempotencyKey, ops }),
    complete: (runId: string, body?: unknown) => post(`${runId}/complete`, body),
    fail: (runId: string, message: string) => post(`${runId}/fail`, { message }),
  };
}

export const replaceOp = (block: BlockView, markdown: string, instructionId: string) => ({
  op: 'replace_block',
  blockId: block.id,
  markdown,
  expectHash: block.hash,
  instructionId,
});

export const deleteOp = (block: BlockView, instructionId: string) => ({
  op: 'delete_block',
  blockId: block.id,
  expectHash: block.hash,
  instructionId,
});

/**
 * The agent (`token`, an agent's by default) claims `run` and writes one batch: block 0 becomes
 * `# TITLE` (instruction 0) and block 1 is deleted (instruction 1). The run stays claimed; the
 * agent is returned to go on.
 */
export async function titleUppercasedAndSecondDeleted(
  server: ApiServer & Pick<TestServer, 'token'>,
  run: Awaited<ReturnType<typeof sentRun>>,
  token = server.token('agent'),
): Promise<ReturnType<typeof agentApi>> {
  const bot = agentApi(server, token);
  expect((await bot.claim(run.runId)).status).toBe(200);
  const [title, second] = run.blocks;
  const batch = await bot.ops(run.runId, 'k1', [replaceOp(title, '# TITLE', run.instructionIds[0]), deleteOp(second, run.instructionIds[1])]);
  expect(batch.status).toBe(200);
  return bot;
}

/**
 * Starts the long poll `query` for `agent` and resolves once the server holds it, with
 * `answer` still to come. A barrier, not a pause: on a server with `longPollsPerSubject: 1` (LIMIT6),
 * another long poll of the same agent is refused with 429 exactly while the first one waits.
 * Should a probe take the slot first, so that the poll itself is refused, it starts the poll
 * again.
 */
export async function heldPoll(agent: ReturnType<typeof agentApi>, query: string): Promise<{ answer: Promise<ApiResponse> }> {
  for (;;) {
    let refused = false;
    const poll = agent.queued(query);
    void poll.then((answer) => (refused = answer.status === 429));
    await waitFor(async () => refused || (await agent.queued('?state=queued&wait=0.1')).status === 429, 10_000);
    if (!refused) return { answer: poll };
  }
}

/**
 * A run on the first block of `docId` answered by the agent Scribe with `markdown`, completed and
 * in review; with `model`, the run reports it first (MODEL8). The run, its instruction and block.
 */
export async function agentRewroteFirstBlock(
  server: Pick<TestServer, 'api' | 'createDoc' | 'token'>,
  docId: string,
  markdown: string,
  options: { model?: string } = {},
): Promise<{ runId: string; instructionId: string; blockId: string }> {
  const [block] = await blocksOf(server, docId);
  const instructionId = await instruct(server, docId, block.id, 'rewrite');
  const sent = await server.api(`/api/docs/${docId}/runs`, { method: 'POST' });
  expect(sent.status).toBe(201);
  const runId: string = sent.body.runId;
  const token = server.token('agent', { sub: 'scribe', name: 'Scribe' });
  const bot = agentApi(server, token);
  expect((await bot.claim(runId)).status).toBe(200);
  if (options.model) {
    expect((await server.api(`/api/agent/runs/${runId}/activity`, { method: 'POST', body: { model: options.model }, token })).status).toBe(200);
  }
  expect((await bot.ops(runId, 'k1', [replaceOp(block, markdown, instructionId)])).status).toBe(200);
  expect((await bot.complete(runId)).status).toBe(200);
  return { runId, instructionId, blockId: block.id };
}
