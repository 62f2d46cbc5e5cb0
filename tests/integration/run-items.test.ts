import { describe, expect, it } from 'vitest';
import { readProseMirrorDoc } from '../../shared/model/doc-content.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { readRunRecords } from '../../shared/protocol/run-record.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { waitFor } from '../helpers/peer.ts';
import { agentApi, blocksOf, createDoc, deleteOp, getRun, instruct, markdownOf, replaceOp, sentRun } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * Review change by change (shared/PROTOCOL.md REV12): `POST /api/runs/:runId/items/:instructionId/accept`
 * and `/discard {reason?}` decide one item of a run in review; the run stays in review until every
 * item is decided, the decision is mirrored to everyone on the document and holds across a restart.
 */

const server = useTestServer({}, 'test');

const markdown = 'alpha one\n\nbeta two\n\ngamma three';

/** A run in review that rewrote block 0 (item 0), block 1 (item 1) and block 2 (item 2). */
async function reviewed(instructions = ['uppercase', 'uppercase', 'uppercase']) {
  const doc = await sentRun(server, markdown, instructions);
  const bot = agentApi(server, server.token('agent'));
  expect((await bot.claim(doc.runId)).status).toBe(200);
  const ops = doc.blocks.slice(0, instructions.length).map((block, index) => replaceOp(block, `${['ALPHA ONE', 'BETA TWO', 'GAMMA THREE'][index]}`, doc.instructionIds[index]));
  expect((await bot.ops(doc.runId, 'k1', ops)).status).toBe(200);
  expect((await bot.complete(doc.runId)).status).toBe(200);
  return doc;
}

const decideItem = (runId: string, instructionId: string, decision: 'accept' | 'discard', body?: unknown, token?: string) =>
  server.api(`/api/runs/${runId}/items/${instructionId}/${decision}`, { method: 'POST', body, token });

/**
 * A run in review of two instructions pinned to the same paragraph of "alpha one two" (then
 * "end"): each of `steps` is one batch, a rewrite of the paragraph as it is then by item A or B.
 */
async function twoItemsInOneBlock(steps: { by: 'A' | 'B'; markdown: string }[], markdown = 'alpha one two\n\nend') {
  const doc = await createDoc(server, markdown);
  const target = doc.blocks[0].id;
  const ids = { A: await instruct(server, doc.id, target, 'first'), B: await instruct(server, doc.id, target, 'second') };
  const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
  expect(sent.status).toBe(201);
  const runId = sent.body.runId as string;
  const bot = agentApi(server, server.token('agent'));
  expect((await bot.claim(runId)).status).toBe(200);
  for (const [index, step] of steps.entries()) {
    const now = (await blocksOf(server, doc.id)).find((block) => block.id === target)!;
    expect((await bot.ops(runId, `k${index}`, [replaceOp(now, step.markdown, ids[step.by])])).status).toBe(200);
  }
  expect((await bot.complete(runId)).status).toBe(200);
  return { docId: doc.id, runId, ids };
}

describe('two items that change the same block', () => {
  it('[REV12] discarding the second item takes back exactly its change', async () => {
    const run = await twoItemsInOneBlock([
      { by: 'A', markdown: 'ALPHA one two' },
      { by: 'B', markdown: 'ALPHA one TWO' },
    ]);
    const discarded = await decideItem(run.runId, run.ids.B, 'discard');
    expect(discarded.body).toMatchObject({ state: 'review', item: { decision: 'discarded' } });
    expect(await markdownOf(server, run.docId)).toBe('ALPHA one two\n\nend');
    expect((await decideItem(run.runId, run.ids.A, 'accept')).body).toMatchObject({ state: 'accepted' });
    expect(await markdownOf(server, run.docId)).toBe('ALPHA one two\n\nend');
  });

  it('[REV12] discarding the first item after accepting the second keeps the accepted change, across a restart', async () => {
    const run = await twoItemsInOneBlock([
      { by: 'A', markdown: 'ALPHA one two' },
      { by: 'B', markdown: 'ALPHA one TWO' },
    ]);
    expect((await decideItem(run.runId, run.ids.B, 'accept')).status).toBe(200);
    await server.restart();
    const discarded = await decideItem(run.runId, run.ids.A, 'discard');
    expect(discarded.body).toMatchObject({ state: 'accepted', item: { decision: 'discarded' } });
    expect(await markdownOf(server, run.docId)).toBe('alpha one TWO\n\nend');
  });

  it('[REV12] takes back one item’s deletion and keeps the other’s insertion in one block, keeping a person’s typing', async () => {
    const run = await twoItemsInOneBlock([
      { by: 'A', markdown: 'alpha two' },
      { by: 'B', markdown: 'alpha two three' },
    ]);
    const editor = server.connect(run.docId);
    await editor.synced;
    appendToBlock(editor.ydoc, 0, ' typed');
    await waitFor(async () => (await markdownOf(server, run.docId)) === 'alpha two three typed\n\nend');
    expect((await decideItem(run.runId, run.ids.A, 'discard')).status).toBe(200);
    expect(await markdownOf(server, run.docId)).toBe('alpha one two three typed\n\nend');
    expect((await decideItem(run.runId, run.ids.B, 'accept')).body).toMatchObject({ state: 'accepted' });
    expect(await markdownOf(server, run.docId)).toBe('alpha one two three typed\n\nend');
    await waitFor(() => !JSON.stringify(readProseMirrorDoc(editor.ydoc).toJSON()).includes('"change"'));
  });

  it('[REV12] takes back one item’s insertion and keeps the other’s deletion in one block', async () => {
    const run = await twoItemsInOneBlock([
      { by: 'A', markdown: 'alpha new one two' },
      { by: 'B', markdown: 'alpha new one' },
    ]);
    expect((await decideItem(run.runId, run.ids.A, 'discard')).status).toBe(200);
    expect(await markdownOf(server, run.docId)).toBe('alpha one\n\nend');
    expect((await decideItem(run.runId, run.ids.B, 'discard')).body).toMatchObject({ state: 'discarded' });
    expect(await markdownOf(server, run.docId)).toBe('alpha one two\n\nend');
  });
});

describe('each item’s part after Undo discard (REV9, REV12)', () => {
  const bothItems = () =>
    twoItemsInOneBlock([
      { by: 'A', markdown: 'ALPHA one two' },
      { by: 'B', markdown: 'ALPHA one TWO' },
    ]);

  it('[REV9][REV12] after Discard run and Undo discard, discarding one item keeps the other’s change in the same paragraph', async () => {
    const run = await bothItems();
    // Undo discard needs the document to stay loaded: someone has it open.
    const editor = server.connect(run.docId);
    await editor.synced;
    expect((await server.api(`/api/runs/${run.runId}/discard`, { method: 'POST' })).body.state).toBe('discarded');
    expect(await markdownOf(server, run.docId)).toBe('alpha one two\n\nend');
    expect((await server.api(`/api/runs/${run.runId}/undo-discard`, { method: 'POST' })).body).toEqual({ state: 'review' });
    expect(await markdownOf(server, run.docId)).toBe('ALPHA one TWO\n\nend');
    expect((await decideItem(run.runId, run.ids.A, 'discard')).body).toMatchObject({ state: 'review', item: { decision: 'discarded' } });
    expect(await markdownOf(server, run.docId)).toBe('alpha one TWO\n\nend');
    expect((await decideItem(run.runId, run.ids.B, 'accept')).body).toMatchObject({ state: 'accepted' });
    expect(await markdownOf(server, run.docId)).toBe('alpha one TWO\n\nend');
  });

  it('[REV9][REV12] after both items are discarded and the discard undone, the stored scope still tells the items apart across a restart', async () => {
    const run = await bothItems();
    const editor = server.connect(run.docId);
    await editor.synced;
    expect((await decideItem(run.runId, run.ids.B, 'discard')).body.state).toBe('review');
    expect((await decideItem(run.runId, run.ids.A, 'discard')).body.state).toBe('discarded');
    expect(await markdownOf(server, run.docId)).toBe('alpha one two\n\nend');
    expect((await server.api(`/api/runs/${run.runId}/undo-discard`, { method: 'POST' })).body).toEqual({ state: 'review' });
    expect(await markdownOf(server, run.docId)).toBe('ALPHA one TWO\n\nend');
    editor.destroy();
    await server.restart();
    expect((await decideItem(run.runId, run.ids.B, 'discard')).body).toMatchObject({ state: 'review', item: { decision: 'discarded' } });
    expect(await markdownOf(server, run.docId)).toBe('ALPHA one two\n\nend');
  });
});

describe('POST /api/runs/:runId/items/:instructionId/accept and /discard', () => {
  it('[REV12] keeps an accepted item and takes back a discarded one, keeping a person’s typing, and decides the run last', async () => {
    const doc = await reviewed();
    const editor = server.connect(doc.docId);
    await editor.synced;
    appendToBlock(editor.ydoc, 1, ' and more');
    await waitFor(async () => (await markdownOf(server, doc.docId)) === 'ALPHA ONE\n\nBETA TWO and more\n\nGAMMA THREE');

    const accepted = await decideItem(doc.runId, doc.instructionIds[0], 'accept');
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ state: 'review', item: { instructionId: doc.instructionIds[0], decision: 'accepted' } });
    const discarded = await decideItem(doc.runId, doc.instructionIds[1], 'discard');
    expect(discarded.body).toMatchObject({ state: 'review', item: { instructionId: doc.instructionIds[1], decision: 'discarded' } });
    expect(await markdownOf(server, doc.docId)).toBe('ALPHA ONE\n\nbeta two and more\n\nGAMMA THREE');
    const run = await getRun(server, doc.runId);
    expect(run.state).toBe('review');
    expect(run.items.map((item) => item.decision)).toEqual(['accepted', 'discarded', null]);

    // Only the accepted item's marks went: block 2 still shows the run's change.
    await waitFor(() => readProseMirrorDoc(editor.ydoc).textContent === 'ALPHA ONEbeta two and moreGAMMA THREE');
    const marked = (index: number) => {
      let found = false;
      readProseMirrorDoc(editor.ydoc).child(index).descendants((node) => {
        found ||= node.marks.some((mark) => mark.type.name === 'change');
      });
      return found;
    };
    expect([marked(0), marked(1), marked(2)]).toEqual([false, false, true]);

    const last = await decideItem(doc.runId, doc.instructionIds[2], 'discard');
    expect(last.body).toMatchObject({ state: 'accepted', item: { decision: 'discarded' } });
    expect(await markdownOf(server, doc.docId)).toBe('ALPHA ONE\n\nbeta two and more\n\ngamma three');
    expect((await getRun(server, doc.runId)).state).toBe('accepted');
  });

  it('[REV12] discards the run when every item is discarded', async () => {
    const doc = await reviewed(['uppercase', 'uppercase']);
    expect((await decideItem(doc.runId, doc.instructionIds[1], 'discard')).body.state).toBe('review');
    expect((await decideItem(doc.runId, doc.instructionIds[0], 'discard')).body.state).toBe('discarded');
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
  });

  it('[REV12] answers 409 ALREADY_DECIDED for an item decided already, 409 NOT_IN_REVIEW before review, 404 for an unknown item', async () => {
    const doc = await reviewed(['uppercase', 'uppercase']);
    expect((await decideItem(doc.runId, doc.instructionIds[0], 'accept')).status).toBe(200);
    const again = await decideItem(doc.runId, doc.instructionIds[0], 'discard');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_DECIDED');
    expect((await decideItem(doc.runId, 'unknown-item-id', 'accept')).status).toBe(404);
    expect(await markdownOf(server, doc.docId)).toBe('ALPHA ONE\n\nBETA TWO\n\ngamma three');

    const queued = await sentRun(server, markdown, ['uppercase']);
    const early = await decideItem(queued.runId, queued.instructionIds[0], 'accept');
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('NOT_IN_REVIEW');
  });

  it('[REV12] lets exactly one of two editors deciding the same item at once win; the other gets 409 ALREADY_DECIDED', async () => {
    const doc = await reviewed(['uppercase', 'uppercase']);
    const [first, second] = await Promise.all([
      decideItem(doc.runId, doc.instructionIds[0], 'accept', undefined, server.token('editor', { doc: doc.docId })),
      decideItem(doc.runId, doc.instructionIds[0], 'discard', undefined, server.token('editor', { doc: doc.docId })),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    const loser = first.status === 409 ? first : second;
    expect(loser.body.error.code).toBe('ALREADY_DECIDED');
    const won = first.status === 200 ? 'accepted' : 'discarded';
    expect((await getRun(server, doc.runId)).items[0].decision).toBe(won);
    expect(await markdownOf(server, doc.docId)).toBe(won === 'accepted' ? 'ALPHA ONE\n\nBETA TWO\n\ngamma three' : 'alpha one\n\nBETA TWO\n\ngamma three');
  });

  it('[REV12] holds a decision across a restart, and decides the other items after it', async () => {
    const doc = await reviewed();
    expect((await decideItem(doc.runId, doc.instructionIds[1], 'discard')).status).toBe(200);
    await server.restart();
    expect((await getRun(server, doc.runId)).items.map((item) => item.decision)).toEqual([null, 'discarded', null]);
    expect(await markdownOf(server, doc.docId)).toBe('ALPHA ONE\n\nbeta two\n\nGAMMA THREE');
    expect((await decideItem(doc.runId, doc.instructionIds[0], 'accept')).status).toBe(200);
    const rest = await server.api(`/api/runs/${doc.runId}/discard`, { method: 'POST' });
    expect(rest.body).toEqual({ state: 'accepted' });
    expect(await markdownOf(server, doc.docId)).toBe('ALPHA ONE\n\nbeta two\n\ngamma three');
    expect((await getRun(server, doc.runId)).items.map((item) => item.decision)).toEqual(['accepted', 'discarded', 'discarded']);
  });

  it('[REV6][REV12] keeps a block a person changed when its item’s delete is accepted, and notes it on the change', async () => {
    const doc = await sentRun(server, markdown, ['uppercase', 'delete']);
    const editor = server.connect(doc.docId);
    await editor.synced;
    const bot = agentApi(server, server.token('agent'));
    expect((await bot.claim(doc.runId)).status).toBe(200);
    const ops = [replaceOp(doc.blocks[0], 'ALPHA ONE', doc.instructionIds[0]), deleteOp(doc.blocks[1], doc.instructionIds[1])];
    expect((await bot.ops(doc.runId, 'k1', ops)).status).toBe(200);
    expect((await bot.complete(doc.runId)).status).toBe(200);
    await waitFor(() => readProseMirrorDoc(editor.ydoc).child(1).attrs.deleting !== null);
    appendToBlock(editor.ydoc, 1, ' kept');
    // The server has the edit once another peer hears of it.
    const watcher = server.connect(doc.docId, server.token('viewer'));
    await watcher.synced;
    await waitFor(() => readProseMirrorDoc(watcher.ydoc).child(1).textContent === 'beta two kept');

    expect((await decideItem(doc.runId, doc.instructionIds[1], 'accept')).body.state).toBe('review');
    const run = await getRun(server, doc.runId);
    expect(run.changes[1].note).toMatch(/^Not applied: /);
    expect(run.changes[0].note).toBeUndefined();
    expect(await markdownOf(server, doc.docId)).toBe('ALPHA ONE\n\nbeta two kept\n\ngamma three');
  });

  it('[REV8][REV12] reverts the items that were accepted of a run decided item by item', async () => {
    const doc = await reviewed(['uppercase', 'uppercase']);
    expect((await decideItem(doc.runId, doc.instructionIds[1], 'discard')).status).toBe(200);
    expect((await decideItem(doc.runId, doc.instructionIds[0], 'accept')).body.state).toBe('accepted');
    expect(await markdownOf(server, doc.docId)).toBe('ALPHA ONE\n\nbeta two\n\ngamma three');
    const reverted = await server.api(`/api/runs/${doc.runId}/revert`, { method: 'POST' });
    expect(reverted.body).toEqual({ state: 'accepted', notReverted: [] });
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
  });

  it('[REV9][REV12] Undo discard brings back every item of a run discarded item by item', async () => {
    const doc = await reviewed(['uppercase', 'uppercase']);
    const editor = server.connect(doc.docId);
    await editor.synced;
    expect((await decideItem(doc.runId, doc.instructionIds[0], 'discard')).status).toBe(200);
    expect((await decideItem(doc.runId, doc.instructionIds[1], 'discard')).body.state).toBe('discarded');
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
    expect((await server.api(`/api/runs/${doc.runId}/undo-discard`, { method: 'POST' })).body).toEqual({ state: 'review' });
    expect(await markdownOf(server, doc.docId)).toBe('ALPHA ONE\n\nBETA TWO\n\ngamma three');
    expect((await getRun(server, doc.runId)).items.map((item) => item.decision)).toEqual([null, null]);
  });

  it('[REV9][REV12] closes the Undo discard window of a run whose items were discarded on either side of a restart', async () => {
    const doc = await reviewed(['uppercase', 'uppercase']);
    expect((await decideItem(doc.runId, doc.instructionIds[0], 'discard')).status).toBe(200);
    await server.restart();
    const editor = server.connect(doc.docId);
    await editor.synced;
    expect((await decideItem(doc.runId, doc.instructionIds[1], 'discard')).body.state).toBe('discarded');
    const undo = await server.api(`/api/runs/${doc.runId}/undo-discard`, { method: 'POST' });
    expect(undo.status).toBe(409);
    expect(undo.body.error.code).toBe('UNDO_WINDOW_CLOSED');
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
    expect((await getRun(server, doc.runId)).state).toBe('discarded');
  });

  it('[REV12] shows each decision live in the <id>/runs mirror', async () => {
    const doc = await reviewed(['uppercase', 'uppercase']);
    const watcher = server.connect(docName(doc.docId, 'runs'), server.token('viewer'));
    await watcher.synced;
    const decisions = () => readRunRecords(watcher.ydoc).runs[0]?.items.map((item) => item.decision);
    await waitFor(() => decisions()?.length === 2);
    expect(decisions()).toEqual([null, null]);
    await decideItem(doc.runId, doc.instructionIds[1], 'accept');
    await waitFor(() => decisions()?.[1] === 'accepted');
    expect(readRunRecords(watcher.ydoc).runs[0].state).toBe('review');
  });

  it('[REV5][REV12] gives a discard reason to the discarded item only', async () => {
    const doc = await reviewed();
    const one = await decideItem(doc.runId, doc.instructionIds[1], 'discard', { reason: 'keep it lower case' });
    expect(one.status).toBe(200);
    expect(one.body.draftIds).toHaveLength(1);
    expect((await decideItem(doc.runId, doc.instructionIds[0], 'accept')).status).toBe(200);
    // Discard run with a reason: only the item it decides (item 2) gets it.
    const rest = await server.api(`/api/runs/${doc.runId}/discard`, { method: 'POST', body: { reason: 'no shouting' } });
    expect(rest.body.draftIds).toHaveLength(1);
    const notes = (await server.api(`/api/docs/${doc.docId}`)).body.annotations as { turns: { text: string }[]; blockId: string; state: string }[];
    const drafts = notes.filter((note) => note.state === 'draft').map((note) => [note.turns[0].text, note.blockId]);
    expect(drafts).toEqual([
      ['keep it lower case', doc.blocks[1].id],
      ['no shouting', doc.blocks[2].id],
    ]);
  });
});
