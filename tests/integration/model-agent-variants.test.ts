import { afterEach, describe, expect, it } from 'vitest';
import type { ChatRequestBody } from '../helpers/fake-openai.ts';
import { startTestModelAgent, toolAnswers, type TestModelAgent } from '../helpers/model-agent.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { roundTrip } from '../helpers/peer.ts';
import { createDoc, getRun, markdownOf, waitForState } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * VAR4 for the model agent: an instruction asking for N answers is answered with N generation
 * requests without tools (rewrite_variants), each carrying the block as the server holds it,
 * made in parallel and counted against the run's token budget, and one propose_variants.
 */

const server = useTestServer();
let running: TestModelAgent | null = null;

afterEach(async () => {
  await running?.stop();
  running = null;
});

const isRewrite = (body: ChatRequestBody) => body.tools === undefined;

/** A document whose first block a person changed after pinning an instruction asking for `variants` answers, sent. */
async function sentWithVariants(variants: number) {
  const doc = await createDoc(server, 'The cat sat.\n\nOther text.');
  const made = await server.api(`/api/docs/${doc.id}/annotations`, { method: 'POST', body: { kind: 'instruction', blockId: doc.blocks[0].id, text: 'Try other animals', variants } });
  expect(made.status).toBe(201);
  // The server's text now differs from the quote the instruction carries.
  const person = server.connect(doc.id);
  await person.synced;
  appendToBlock(person.ydoc, 0, ' Then it slept.');
  await roundTrip(person);
  const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
  expect(sent.status).toBe(201);
  return { docId: doc.id, runId: sent.body.runId as string, instructionId: made.body.id as string, blockId: doc.blocks[0].id };
}

describe('variants from the model agent', () => {
  it('[VAR4] makes N tool-less requests from the server’s text, in parallel, and proposes their answers as variants', async () => {
    const { docId, runId, instructionId, blockId } = await sentWithVariants(3);
    const usage = { promptTokens: 50, completionTokens: 10 };
    // A barrier: each rewrite is answered once all three have arrived (or after 5 s, seeing fewer).
    let arrived = 0;
    let allArrived!: () => void;
    const barrier = new Promise<void>((resolve) => (allArrived = resolve));
    const seenAtReply: number[] = [];
    const rewriteStep = (text: string) => async () => {
      if (++arrived === 3) allArrived();
      await Promise.race([barrier, new Promise((resolve) => setTimeout(resolve, 5000))]);
      seenAtReply.push(arrived);
      return { text, usage };
    };
    running = await startTestModelAgent(server, [
      { toolCalls: [{ name: 'read_block', arguments: { blockId } }], usage },
      { toolCalls: [{ name: 'rewrite_variants', arguments: { instructionId, blockId, instruction: 'Try other animals' } }], usage },
      rewriteStep('The dog sat. Then it slept.'),
      rewriteStep('```markdown\nThe fox sat. Then it slept.\n```'),
      rewriteStep('The owl sat. Then it slept.'),
      { text: 'Three animals to choose from.', usage },
    ]);
    const run = await waitForState(server, runId, 'review', 15_000);
    const requests = running.model.requests.map((request) => request.body);
    expect(requests.map(isRewrite)).toEqual([false, false, true, true, true, false]);
    const rewrites = requests.filter(isRewrite);
    for (const [index, rewrite] of rewrites.entries()) {
      const asked = rewrite.messages[1].content ?? '';
      expect(asked).toContain('Instruction: Try other animals');
      expect(asked).toContain('<block-markdown>\nThe cat sat. Then it slept.\n</block-markdown>');
      expect(asked).toMatch(new RegExp(`alternative \\d of 3`));
      expect(rewrite.messages.map((message) => message.role), `rewrite ${index}`).toEqual(['system', 'user']);
    }
    // Each rewrite says which alternative it is, each once.
    expect(rewrites.map((rewrite) => /alternative (\d) of 3/.exec(rewrite.messages[1].content ?? '')?.[1]).sort()).toEqual(['1', '2', '3']);
    // The three requests were out at once: each was answered after all three had arrived.
    expect(seenAtReply).toEqual([3, 3, 3]);
    expect(toolAnswers(requests[5]).at(-1)).toEqual({ ok: true });

    const candidates = run.items[0].variants.map((variant) => variant.markdown);
    expect([...candidates].sort()).toEqual(['The dog sat. Then it slept.', 'The fox sat. Then it slept.', 'The owl sat. Then it slept.']);
    expect(run.items[0].chosen).toBe(0);
    expect(await markdownOf(server, docId)).toBe(`${candidates[0]}\n\nOther text.`);
    // Every request counted: six calls of 60 tokens.
    expect((await getRun(server, runId)).usage).toMatchObject({ inputTokens: 300, outputTokens: 60 });
  });

  it('[VAR4] offers no variant tool in a run whose instructions ask for one answer each', async () => {
    const { runId, instructionId, blockId } = await sentWithVariants(1);
    running = await startTestModelAgent(server, [
      { toolCalls: [{ name: 'read_block', arguments: { blockId } }] },
      { toolCalls: [{ name: 'rewrite_variants', arguments: { instructionId, blockId, instruction: 'x' } }] },
      { text: 'Nothing to do.' },
    ]);
    await waitForState(server, runId, 'review', 15_000);
    const requests = running.model.requests.map((request) => request.body);
    const offered = (requests[0].tools ?? []).map((tool) => tool.function.name);
    expect(offered).toContain('rewrite_block');
    expect(offered).not.toContain('rewrite_variants');
    expect(offered).not.toContain('propose_variants');
    expect(toolAnswers(requests[2]).at(-1)).toEqual({ error: { code: 'UNKNOWN_TOOL', message: expect.any(String) } });
  });
});
