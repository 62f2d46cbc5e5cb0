import { describe, expect, it } from 'vitest';
import { readProseMirrorDoc } from '../../shared/model/doc-content.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { waitFor } from '../helpers/peer.ts';
import { agentApi, blocksOf, createDoc, getRun, markdownOf, waitForState } from '../helpers/runs.ts';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * Variants (shared/PROTOCOL.md VAR1–VAR4): an instruction asks for N answers, the agent proposes
 * them with one `propose_variants`, the run's item lists them, and
 * `POST /api/runs/:runId/items/:instructionId/choose {variant}` swaps the one the text shows,
 * for everyone, keeping people's typing elsewhere; Accept and Discard act on the one shown.
 */

const server = useTestServer({}, 'test');

const markdown = 'The cat sat on the mat.\n\nBob wrote this.\n\nThe end.';
const candidates = ['The dog sat on the mat.', '## A fox on a mat', 'An owl sat there.\n\nOn the mat, too.'];

/** A run in review whose one item, asking for three answers, was answered with `candidates` on block 0. */
async function proposed() {
  const doc = await createDoc(server, markdown);
  const made = await server.api(`/api/docs/${doc.id}/annotations`, { method: 'POST', body: { kind: 'instruction', blockId: doc.blocks[0].id, text: 'try animals', variants: 3 } });
  expect(made.status).toBe(201);
  const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
  expect(sent.status).toBe(201);
  expect(sent.body.items[0].variantsWanted).toBe(3);
  const runId: string = sent.body.runId;
  const instructionId: string = made.body.id;
  const bot = agentApi(server, server.token('agent'));
  const claimed = await bot.claim(runId);
  expect(claimed.status).toBe(200);
  const op = { op: 'propose_variants', blockId: doc.blocks[0].id, expectHash: doc.blocks[0].hash, instructionId, candidates };
  const applied = await bot.ops(runId, 'k1', [op]);
  expect(applied.status, JSON.stringify(applied.body)).toBe(200);
  expect((await bot.complete(runId)).status).toBe(200);
  return { docId: doc.id, runId, instructionId, bot, op };
}

const choose = (runId: string, instructionId: string, body: unknown, token?: string) =>
  server.api(`/api/runs/${runId}/items/${instructionId}/choose`, { method: 'POST', body, token });

describe('variants', () => {
  it('[VAR1] keeps the number asked for on the instruction, refusing a number outside 1 to 4', async () => {
    const doc = await createDoc(server, markdown);
    for (const variants of [0, 5, 2.5, '3']) {
      const refused = await server.api(`/api/docs/${doc.id}/annotations`, { method: 'POST', body: { kind: 'instruction', blockId: doc.blocks[0].id, text: 'x', variants } });
      expect(refused.status, String(variants)).toBe(422);
      expect(refused.body.error.message).toMatch(/variants must be a whole number from 1 to 4/);
    }
    const view = await server.api(`/api/docs/${doc.id}`);
    expect(view.body.annotations).toEqual([]);
  });

  it('[VAR1][VAR2] lists the candidates, shows the first, and swaps the text for everyone on choose', async () => {
    const { docId, runId, instructionId } = await proposed();
    const run = await getRun(server, runId);
    expect(run.items[0]).toMatchObject({ variantsWanted: 3, chosen: 0, variants: [0, 1, 2].map((index) => ({ index, markdown: candidates[index] })) });
    expect(await markdownOf(server, docId)).toBe(`${candidates[0]}\n\nBob wrote this.\n\nThe end.`);

    const peer = server.connect(docId);
    await peer.synced;
    appendToBlock(peer.ydoc, 1, ' And more.');
    await waitFor(async () => (await markdownOf(server, docId)).includes('And more.'));

    const chosen = await choose(runId, instructionId, { variant: 2 });
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    expect(chosen.body.item).toMatchObject({ instructionId, chosen: 2 });
    expect(await markdownOf(server, docId)).toBe(`${candidates[2]}\n\nBob wrote this. And more.\n\nThe end.`);
    await waitFor(() => readProseMirrorDoc(peer.ydoc).textContent.startsWith('An owl sat there.On the mat, too.Bob wrote this. And more.'));
    expect((await getRun(server, runId)).changes[0].after).toBe(candidates[2]);

    expect((await choose(runId, instructionId, { variant: 1 })).status).toBe(200);
    expect(await markdownOf(server, docId)).toBe(`${candidates[1]}\n\nBob wrote this. And more.\n\nThe end.`);
    // Choosing the one shown changes nothing.
    expect((await choose(runId, instructionId, { variant: 1 })).body.item.chosen).toBe(1);
    expect(await markdownOf(server, docId)).toBe(`${candidates[1]}\n\nBob wrote this. And more.\n\nThe end.`);
  });

  it('[VAR2] answers 422 NO_SUCH_VARIANT, 422 INVALID_BODY, 403 for a commenter and 409 once decided, changing nothing', async () => {
    const { docId, runId, instructionId } = await proposed();
    const before = await markdownOf(server, docId);
    for (const variant of [3, -1, 7]) {
      const refused = await choose(runId, instructionId, { variant });
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('NO_SUCH_VARIANT');
    }
    const malformed = await choose(runId, instructionId, { variant: 'two' });
    expect([malformed.status, malformed.body.error.code]).toEqual([422, 'INVALID_BODY']);
    const commenter = await choose(runId, instructionId, { variant: 1 }, server.token('commenter'));
    expect(commenter.status).toBe(403);
    expect((await choose(runId, 'nosuchitem', { variant: 1 })).status).toBe(404);
    expect(await markdownOf(server, docId)).toBe(before);
    expect((await server.api(`/api/runs/${runId}/items/${instructionId}/accept`, { method: 'POST' })).status).toBe(200);
    // Its one item decided, the run left review.
    const late = await choose(runId, instructionId, { variant: 1 });
    expect([late.status, late.body.error.code]).toEqual([409, 'NOT_IN_REVIEW']);
  });

  it('[VAR3] Accept keeps the candidate shown, without marks; Discard takes it back, keeping people’s typing', async () => {
    const accepted = await proposed();
    expect((await choose(accepted.runId, accepted.instructionId, { variant: 2 })).status).toBe(200);
    expect((await server.api(`/api/runs/${accepted.runId}/accept`, { method: 'POST' })).status).toBe(200);
    expect(await markdownOf(server, accepted.docId)).toBe(`${candidates[2]}\n\nBob wrote this.\n\nThe end.`);

    const discarded = await proposed();
    const peer = server.connect(discarded.docId);
    await peer.synced;
    expect((await choose(discarded.runId, discarded.instructionId, { variant: 1 })).status).toBe(200);
    // The last block of the text (the run's blocks before it include the one it marked for deletion).
    appendToBlock(peer.ydoc, docParts(peer.ydoc).content.length - 1, ' Really.');
    await waitFor(async () => (await markdownOf(server, discarded.docId)).endsWith('Really.'));
    expect((await server.api(`/api/runs/${discarded.runId}/discard`, { method: 'POST' })).status).toBe(200);
    expect(await markdownOf(server, discarded.docId)).toBe('The cat sat on the mat.\n\nBob wrote this.\n\nThe end. Really.');
  });

  it('[VAR3] Revert of an accepted run takes back the candidate shown, and the item’s Discard takes back the one shown', async () => {
    const reverted = await proposed();
    expect((await choose(reverted.runId, reverted.instructionId, { variant: 2 })).status).toBe(200);
    expect((await server.api(`/api/runs/${reverted.runId}/items/${reverted.instructionId}/accept`, { method: 'POST' })).status).toBe(200);
    expect(await markdownOf(server, reverted.docId)).toBe(`${candidates[2]}\n\nBob wrote this.\n\nThe end.`);
    const revert = await server.api(`/api/runs/${reverted.runId}/revert`, { method: 'POST' });
    expect(revert.body).toEqual({ state: 'accepted', notReverted: [] });
    expect(await markdownOf(server, reverted.docId)).toBe(markdown);

    const discarded = await proposed();
    expect((await choose(discarded.runId, discarded.instructionId, { variant: 1 })).status).toBe(200);
    expect((await server.api(`/api/runs/${discarded.runId}/items/${discarded.instructionId}/discard`, { method: 'POST' })).status).toBe(200);
    expect(await markdownOf(server, discarded.docId)).toBe(markdown);
  });

  it('[VAR2] holds the choice across a restart, and swaps again after it', async () => {
    const { docId, runId, instructionId } = await proposed();
    expect((await choose(runId, instructionId, { variant: 2 })).status).toBe(200);
    await server.restart();
    expect((await getRun(server, runId)).items[0].chosen).toBe(2);
    expect(await markdownOf(server, docId)).toBe(`${candidates[2]}\n\nBob wrote this.\n\nThe end.`);
    expect((await choose(runId, instructionId, { variant: 0 })).status).toBe(200);
    expect(await markdownOf(server, docId)).toBe(markdown.replace('The cat sat on the mat.', candidates[0]));
    expect((await server.api(`/api/runs/${runId}/discard`, { method: 'POST' })).status).toBe(200);
    expect(await markdownOf(server, docId)).toBe(markdown);
  });

  it('[VAR1] refuses a second answer to an instruction answered with variants, and variants after another answer', async () => {
    const { runId, bot, op } = await proposed().then(async (first) => {
      // A fresh run on which the agent answers twice.
      const doc = await createDoc(server, markdown);
      const made = await server.api(`/api/docs/${doc.id}/annotations`, { method: 'POST', body: { kind: 'instruction', blockId: doc.blocks[0].id, text: 'try', variants: 2 } });
      const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
      expect((await first.bot.claim(sent.body.runId)).status).toBe(200);
      return { runId: sent.body.runId as string, bot: first.bot, op: { ...first.op, blockId: doc.blocks[0].id, expectHash: doc.blocks[0].hash, instructionId: made.body.id as string } };
    });
    expect((await bot.ops(runId, 'a', [op])).status).toBe(200);
    expect((await getRun(server, runId)).items[0].variants).toHaveLength(3);
    const docId = (await getRun(server, runId)).docId;
    const shown = (await blocksOf(server, docId)).find((block) => block.id === op.blockId);
    const again = await bot.ops(runId, 'b', [{ op: 'replace_block', blockId: op.blockId, markdown: 'Other', expectHash: shown?.hash, instructionId: op.instructionId }]);
    expect([again.status, again.body.error.code, again.body.error.message]).toEqual([422, 'INVALID_OP', expect.stringMatching(/variants are the one answer/)]);
  });
});

describe('variants from the reference agent', () => {
  it('[VAR4] answers replace "A" with one of "B", "C", "D" with three candidates; a choice and Accept keep the one shown', async () => {
    const agent = startTestReferenceAgent(server);
    try {
      const doc = await createDoc(server, markdown);
      const made = await server.api(`/api/docs/${doc.id}/annotations`, {
        method: 'POST',
        body: { kind: 'instruction', blockId: doc.blocks[0].id, text: 'replace "cat" with one of "dog", "fox", "owl"', variants: 3 },
      });
      const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
      const run = await waitForState(server, sent.body.runId, 'review', 10_000);
      expect(run.items[0]).toMatchObject({ outcome: 'changed', chosen: 0, variants: ['dog', 'fox', 'owl'].map((animal, index) => ({ index, markdown: `The ${animal} sat on the mat.` })) });
      expect(await markdownOf(server, doc.id)).toBe(markdown.replace('cat', 'dog'));
      expect((await choose(run.runId, made.body.id, { variant: 2 })).status).toBe(200);
      expect((await server.api(`/api/runs/${run.runId}/accept`, { method: 'POST' })).status).toBe(200);
      expect(await markdownOf(server, doc.id)).toBe(markdown.replace('cat', 'owl'));
    } finally {
      await agent.stop();
    }
  });
});
