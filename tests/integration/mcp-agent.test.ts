import { afterEach, describe, expect, it } from 'vitest';
import { connectMcp, type McpSession } from '../helpers/mcp.ts';
import { agentApi, createDoc, getRun, markdownOf, sentRun, waitForState } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { waitFor } from '../helpers/peer.ts';

/*
 * `tandem mcp` as an MCP client meets it: the real command in its own process, the MCP SDK's
 * client over stdio, a real server.
 */

// Heartbeats come every third of a lease: room for a loaded machine.
const leaseMs = 3000;
const server = useTestServer({ leaseMs });
const sessions: McpSession[] = [];

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});

async function mcp(token = server.token('agent', { name: 'Desk assistant' })): Promise<McpSession> {
  const session = await connectMcp(server.url, token);
  sessions.push(session);
  return session;
}

const lifecycle = ['list_runs', 'claim_run', 'read_asides', 'answer_aside', 'complete_run', 'fail_run'];

describe('tandem mcp', () => {
  it('[MCP1] [MCP2] lists the run tools and the model tools, each model tool taking a runId', async () => {
    const session = await mcp();
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'list_runs',
      'claim_run',
      'read_document',
      'read_block',
      'replace_block',
      'insert_after',
      'delete_block',
      'propose_variants',
      'refuse',
      'read_asides',
      'answer_aside',
      'complete_run',
      'fail_run',
    ]);
    const replace = tools.find((tool) => tool.name === 'replace_block')!;
    expect(replace.inputSchema.required).toEqual(['runId', 'instructionId', 'blockId', 'markdown']);
    // VAR4: the op as a tool, its candidates a list of 2 to 4 strings.
    const variants = tools.find((tool) => tool.name === 'propose_variants')!;
    expect(variants.inputSchema.required).toEqual(['runId', 'instructionId', 'blockId', 'candidates']);
    expect(variants.inputSchema.properties?.candidates).toMatchObject({ type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 4 });
  });

  it('[MCP1] answers the server’s refusal when the token is not an agent’s', async () => {
    const session = await mcp(server.token('editor'));
    const listed = await session.call('list_runs');
    expect(listed.isError).toBe(true);
    expect(listed.answer.error.code).toBe('FORBIDDEN');
  });

  it('[MCP2] offers no write tool outside the token’s ops', async () => {
    const session = await mcp(server.token('agent', { ops: ['insert_after'] }));
    const names = (await session.client.listTools()).tools.map((tool) => tool.name);
    expect(names.filter((name) => !lifecycle.includes(name))).toEqual(['read_document', 'read_block', 'insert_after', 'refuse']);
  });

  it('[MCP3] lists, claims, reads, replaces and completes a run, which people then review with the change', async () => {
    const run = await sentRun(server, 'alpha\n\nbeta', ['uppercase']);
    const session = await mcp();
    const listed = await session.call('list_runs');
    expect(listed.answer.runs.map((queued: { runId: string }) => queued.runId)).toContain(run.runId);

    const claimed = await session.call('claim_run', { runId: run.runId });
    expect(claimed.isError).toBe(false);
    expect(claimed.answer.items.map((item: { instructionId: string }) => item.instructionId)).toEqual(run.instructionIds);

    const read = await session.call('read_document', { runId: run.runId });
    expect(read.answer.blocks.map((block: { markdown: string }) => block.markdown)).toEqual(['alpha', 'beta']);
    const blockId = run.blocks[0].id;
    const replaced = await session.call('replace_block', { runId: run.runId, instructionId: run.instructionIds[0], blockId, markdown: 'ALPHA' });
    expect(replaced).toEqual({ answer: { ok: true }, isError: false });
    const completed = await session.call('complete_run', { runId: run.runId, summary: 'Uppercased the first paragraph.' });
    expect(completed.answer).toEqual({ state: 'review' });

    const record = await getRun(server, run.runId);
    expect(record.state).toBe('review');
    expect(record.summary).toBe('Uppercased the first paragraph.');
    expect(record.changes.map((change) => [change.op, change.blockId, change.after])).toEqual([['replace_block', blockId, 'ALPHA']]);
    expect(await markdownOf(server, run.docId)).toBe('ALPHA\n\nbeta');
  });

  it('[MCP6] [MODEL7] rewrites a block through the client’s own model, from the text the server holds', async () => {
    const run = await sentRun(server, 'alpha\n\nbeta', ['make it formal']);
    const prompts: string[] = [];
    const session = await connectMcp(server.url, server.token('agent', { name: 'Desk assistant' }), {
      sample: (request) => {
        prompts.push(request.params.messages.map((message) => (message.content as { text: string }).text).join('\n'));
        return 'Alpha, formally.';
      },
    });
    sessions.push(session);
    const names = (await session.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('rewrite_block');
    await session.call('claim_run', { runId: run.runId });
    await session.call('read_document', { runId: run.runId });
    const rewritten = await session.call('rewrite_block', { runId: run.runId, instructionId: run.instructionIds[0], blockId: run.blocks[0].id, instruction: 'make it formal' });
    expect(rewritten).toEqual({ answer: { ok: true }, isError: false });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('alpha');
    expect(prompts[0]).toContain('make it formal');
    expect(await markdownOf(server, run.docId)).toBe('Alpha, formally.\n\nbeta');
  });

  it('[VAR4] [MCP6] rewrites variants through the client’s own model, one sampling request per variant, each from the server’s text', async () => {
    const doc = await createDoc(server, 'The cat sat.\n\nbeta');
    const asked = await server.api(`/api/docs/${doc.id}/annotations`, { method: 'POST', body: { kind: 'instruction', blockId: doc.blocks[0].id, text: 'animals', variants: 3 } });
    const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    const prompts: string[] = [];
    const session = await connectMcp(server.url, server.token('agent', { name: 'Desk assistant' }), {
      sample: (request) => {
        const prompt = request.params.messages.map((message) => (message.content as { text: string }).text).join('\n');
        prompts.push(prompt);
        return `The ${['dog', 'fox', 'owl'][Number(/alternative (\d) of 3/.exec(prompt)?.[1] ?? 1) - 1]} sat.`;
      },
    });
    sessions.push(session);
    expect((await session.client.listTools()).tools.map((tool) => tool.name)).toContain('rewrite_variants');
    await session.call('claim_run', { runId: sent.body.runId });
    await session.call('read_document', { runId: sent.body.runId });
    const rewritten = await session.call('rewrite_variants', { runId: sent.body.runId, instructionId: asked.body.id, blockId: doc.blocks[0].id, instruction: 'other animals' });
    expect(rewritten).toEqual({ answer: { ok: true }, isError: false });
    expect(prompts).toHaveLength(3);
    for (const prompt of prompts) expect(prompt).toMatch(/other animals[\s\S]*alternative \d of 3[\s\S]*The cat sat\./);
    expect((await getRun(server, sent.body.runId)).items[0].variants.map((variant) => variant.markdown)).toEqual(['The dog sat.', 'The fox sat.', 'The owl sat.']);
  });

  it('[VAR4] proposes variants the client wrote, for an instruction asking for them, and ONE_ANSWER for one that does not', async () => {
    const doc = await createDoc(server, 'The cat sat.\n\nbeta');
    const asked = await server.api(`/api/docs/${doc.id}/annotations`, { method: 'POST', body: { kind: 'instruction', blockId: doc.blocks[0].id, text: 'animals', variants: 2 } });
    const single = await server.api(`/api/docs/${doc.id}/annotations`, { method: 'POST', body: { kind: 'instruction', blockId: doc.blocks[1].id, text: 'louder' } });
    const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    const session = await mcp();
    const claimed = await session.call('claim_run', { runId: sent.body.runId });
    expect(claimed.answer.items.map((item: { variantsWanted: number }) => item.variantsWanted)).toEqual([2, 1]);
    await session.call('read_document', { runId: sent.body.runId });
    const one = await session.call('propose_variants', { runId: sent.body.runId, instructionId: single.body.id, blockId: doc.blocks[1].id, candidates: ['BETA', 'Beta!'] });
    expect(one.answer.error.code).toBe('ONE_ANSWER');
    const proposed = await session.call('propose_variants', { runId: sent.body.runId, instructionId: asked.body.id, blockId: doc.blocks[0].id, candidates: ['The dog sat.', 'The owl sat.'] });
    expect(proposed.answer).toEqual({ ok: true });
    const run = await getRun(server, sent.body.runId);
    expect(run.items[0].variants.map((variant) => variant.markdown)).toEqual(['The dog sat.', 'The owl sat.']);
    expect(await markdownOf(server, doc.id)).toBe('The dog sat.\n\nbeta');
  });

  it('[MCP3] answers READ_FIRST to a write before a read, and changes nothing', async () => {
    const run = await sentRun(server, 'alpha', ['uppercase']);
    const session = await mcp();
    await session.call('claim_run', { runId: run.runId });
    const write = await session.call('replace_block', { runId: run.runId, instructionId: run.instructionIds[0], blockId: run.blocks[0].id, markdown: 'ALPHA' });
    expect(write.isError).toBe(true);
    expect(write.answer.error.code).toBe('READ_FIRST');
    expect(await markdownOf(server, run.docId)).toBe('alpha');
  });

  it('[MCP3] answers NOT_CLAIMED for a model tool on a run it did not claim', async () => {
    const run = await sentRun(server, 'alpha', ['uppercase']);
    const session = await mcp();
    const read = await session.call('read_document', { runId: run.runId });
    expect(read.answer.error.code).toBe('NOT_CLAIMED');
    expect((await getRun(server, run.runId)).state).toBe('queued');
  });

  it('[MCP4] keeps the lease alive past LEASE_MS while the client thinks, where a silent claim runs out', async () => {
    const kept = await sentRun(server, 'kept', ['uppercase']);
    const silent = await sentRun(server, 'silent', ['uppercase']);
    const session = await mcp();
    await session.call('claim_run', { runId: kept.runId });
    expect((await agentApi(server, server.token('agent')).claim(silent.runId)).status).toBe(200);

    // The positive control: a claim nobody heartbeats goes back to the queue after one lease.
    await waitForState(server, silent.runId, 'queued', 10 * leaseMs);
    expect((await getRun(server, kept.runId)).state).toBe('claimed');
    const read = await session.call('read_document', { runId: kept.runId });
    expect(read.answer.blocks.map((block: { markdown: string }) => block.markdown)).toEqual(['kept']);
  });

  it('[MCP4] lets go of a completed run: completing it again answers NOT_CLAIMED and it stays in review', async () => {
    const run = await sentRun(server, 'alpha', ['uppercase']);
    const session = await mcp();
    await session.call('claim_run', { runId: run.runId });
    await session.call('complete_run', { runId: run.runId });
    const again = await session.call('complete_run', { runId: run.runId });
    expect(again.answer.error.code).toBe('NOT_CLAIMED');
    expect((await getRun(server, run.runId)).state).toBe('review');
  });

  it('[MCP4] ends a claim whose heartbeat is refused, and answers LEASE_LOST from then on', async () => {
    const run = await sentRun(server, 'alpha', ['uppercase']);
    const token = server.token('agent');
    const session = await mcp(token);
    await session.call('claim_run', { runId: run.runId });
    // The same principal fails the run over HTTP: the session's next heartbeat is refused.
    expect((await agentApi(server, token).fail(run.runId, 'Stopped from elsewhere.')).status).toBe(200);
    await waitFor(async () => (await session.call('read_document', { runId: run.runId })).answer.error?.code === 'LEASE_LOST', 10 * leaseMs);
    const complete = await session.call('complete_run', { runId: run.runId });
    expect(complete.answer.error.code).toBe('LEASE_LOST');
    expect((await getRun(server, run.runId)).state).toBe('failed');
  });

  it('[MCP7] hands a person’s question about a claimed run to the client and its answer back to the person', async () => {
    const run = await sentRun(server, 'alpha', ['uppercase']);
    const session = await mcp();
    await session.call('claim_run', { runId: run.runId });
    const asked = server.api(`/api/runs/${run.runId}/asides`, { method: 'POST', body: { text: 'Which paragraph first?' } });
    const read = await session.call('read_asides', { runId: run.runId, waitSeconds: 10 });
    expect(read.answer.asides.map(({ kind, text }: { kind: string; text: string }) => ({ kind, text }))).toEqual([
      { kind: 'question', text: 'Which paragraph first?' },
    ]);
    const answered = await session.call('answer_aside', { runId: run.runId, asideId: read.answer.asides[0].asideId, answer: 'The first one.' });
    expect(answered.isError).toBe(false);
    const response = await asked;
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ route: 'side', answer: 'The first one.' });
    expect((await getRun(server, run.runId)).state).toBe('claimed');
  });

  it('[MCP7] answers NOT_CLAIMED for the asides of a run it did not claim', async () => {
    const run = await sentRun(server, 'alpha', ['uppercase']);
    const session = await mcp();
    expect((await session.call('read_asides', { runId: run.runId })).answer.error.code).toBe('NOT_CLAIMED');
  });

  it('[MCP5] gives a claimed run back when the client closes, failing it with a clear message', async () => {
    const run = await sentRun(server, 'alpha', ['uppercase']);
    const session = await mcp();
    await session.call('claim_run', { runId: run.runId });
    await session.close();
    const record = await waitForState(server, run.runId, 'failed');
    expect(record.error).toBe('The MCP client disconnected before it completed the run.');
    await waitFor(async () => (await server.api(`/api/docs/${run.docId}/runs`, { method: 'POST' })).status !== 409);
  });
});
