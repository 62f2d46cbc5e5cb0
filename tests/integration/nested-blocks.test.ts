import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { docParts } from '../../shared/model/doc-layout.ts';
import { roundTrip, waitFor } from '../helpers/peer.ts';
import { agentApi, blocksOf, createDoc, deleteOp, instruct, markdownOf, replaceOp } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import type { BlockView } from '../../shared/model/doc-content.ts';

/*
 * Nested blocks over HTTP (shared/PROTOCOL.md OP12): `GET /api/docs/:id` lists every list item
 * and every block inside an item or a quote with `parentId` and `type`, and ops address them by
 * id as top-level blocks.
 */

const server = useTestServer({}, 'test');

const markdown = 'Intro\n\n- first item\n- second item\n- third item\n\n> quoted words';
const items = (blocks: BlockView[]) => blocks.filter((block) => block.type === 'list_item');

/** A document with `instruction` pinned to its second list item, sent as a run the agent has claimed. */
async function claimedOnSecondItem(instruction: string) {
  const doc = await createDoc(server, markdown);
  const second = items(doc.blocks)[1];
  const instructionId = await instruct(server, doc.id, second.id, instruction);
  const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
  expect(sent.status).toBe(201);
  const bot = agentApi(server, server.token('agent'));
  const claim = await bot.claim(sent.body.runId);
  expect(claim.status).toBe(200);
  return { doc, second, instructionId, runId: sent.body.runId as string, bot, claimed: claim.body.document.blocks as BlockView[] };
}

describe('nested blocks over HTTP (OP12)', () => {
  it('[OP12] GET lists items and nested blocks in document order with parentId and type', async () => {
    const { id, blocks } = await createDoc(server, markdown);
    expect(blocks.map(({ type, markdown: text }) => [type, text])).toEqual([
      ['paragraph', 'Intro'],
      ['bullet_list', '* first item\n* second item\n* third item'],
      ['list_item', 'first item'],
      ['paragraph', 'first item'],
      ['list_item', 'second item'],
      ['paragraph', 'second item'],
      ['list_item', 'third item'],
      ['paragraph', 'third item'],
      ['blockquote', '> quoted words'],
      ['paragraph', 'quoted words'],
    ]);
    const list = blocks[1];
    expect(blocks[0].parentId).toBeNull();
    expect(list.parentId).toBeNull();
    expect(items(blocks).map((item) => item.parentId)).toEqual([list.id, list.id, list.id]);
    expect(blocks[3].parentId).toBe(blocks[2].id);
    expect(blocks[9].parentId).toBe(blocks[8].id);
    expect(new Set(blocks.map((block) => block.id)).size).toBe(blocks.length);
    // The same blocks, the same ids, on every read.
    expect(await blocksOf(server, id)).toEqual(blocks);
  });

  it('[OP12][OP7] a delete of the second of three items leaves the others; Accept removes only it', async () => {
    const { doc, second, instructionId, runId, bot, claimed } = await claimedOnSecondItem('delete');
    expect(claimed).toEqual(doc.blocks);
    const applied = await bot.ops(runId, 'k1', [deleteOp(second, instructionId)]);
    expect(applied).toMatchObject({ status: 200, body: { applied: 1 } });
    expect((await bot.complete(runId)).status).toBe(200);
    const during = items(await blocksOf(server, doc.id));
    expect(during.map((item) => item.markdown)).toEqual(['first item', 'third item']);
    expect((await markdownOf(server, doc.id)).trim()).toBe('Intro\n\n* first item\n* third item\n\n> quoted words');
    const run = (await server.api(`/api/runs/${runId}`)).body;
    expect(run.changes.map((change: { op: string; blockId: string; before: string }) => [change.op, change.blockId, change.before])).toEqual([['delete_block', second.id, 'second item']]);

    expect((await server.api(`/api/runs/${runId}/accept`, { method: 'POST' })).status).toBe(200);
    const after = await blocksOf(server, doc.id);
    expect(items(after).map((item) => [item.id, item.markdown])).toEqual([
      [items(doc.blocks)[0].id, 'first item'],
      [items(doc.blocks)[2].id, 'third item'],
    ]);
  });

  it('[OP12][REV2] Discard of a delete of one item gives it back, with its id', async () => {
    const { doc, second, instructionId, runId, bot } = await claimedOnSecondItem('delete');
    expect((await bot.ops(runId, 'k1', [deleteOp(second, instructionId)])).status).toBe(200);
    expect((await bot.complete(runId)).status).toBe(200);
    expect((await server.api(`/api/runs/${runId}/discard`, { method: 'POST' })).status).toBe(200);
    expect(await blocksOf(server, doc.id)).toEqual(doc.blocks);
  });

  it('[OP12][STALE_BLOCK] an op on an item a person changed since it was read is refused; on its sibling it is applied', async () => {
    const { doc, second, instructionId, runId, bot } = await claimedOnSecondItem('uppercase');
    const editor = server.connect(doc.id);
    await editor.synced;
    const list = docParts(editor.ydoc).content.get(1) as Y.XmlElement;
    const text = ((list.get(1) as Y.XmlElement).get(0) as Y.XmlElement).get(0) as Y.XmlText;
    text.insert(text.length, ', edited');
    await waitFor(async () => items(await blocksOf(server, doc.id))[1].markdown === 'second item, edited');
    const stale = await bot.ops(runId, 'k1', [replaceOp(second, 'SECOND ITEM', instructionId)]);
    expect(stale).toMatchObject({ status: 409, body: { error: { code: 'STALE_BLOCK' } } });
    // The sibling is outside the fence: the instruction targets the second item only.
    const sibling = await bot.ops(runId, 'k2', [deleteOp(items(doc.blocks)[0], instructionId)]);
    expect(sibling).toMatchObject({ status: 403, body: { error: { code: 'OUTSIDE_FENCE' } } });
    // Read again, the item is replaced with the Markdown of its content.
    const fresh = items(await blocksOf(server, doc.id))[1];
    expect((await bot.ops(runId, 'k3', [replaceOp(fresh, 'SECOND ITEM, EDITED', instructionId)])).status).toBe(200);
    expect(items(await blocksOf(server, doc.id)).map((item) => item.markdown)).toEqual(['first item', 'SECOND ITEM, EDITED', 'third item']);
  });

  it('[OP12][REV6][REV12] keeps a list item and a quoted paragraph a person changed when their deletes are accepted, and says who', async () => {
    const doc = await createDoc(server, markdown);
    const second = items(doc.blocks)[1];
    const quoted = doc.blocks[9];
    const onItem = await instruct(server, doc.id, second.id, 'delete');
    const onQuote = await instruct(server, doc.id, quoted.id, 'delete');
    const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    const runId = sent.body.runId as string;
    const bot = agentApi(server, server.token('agent'));
    expect((await bot.claim(runId)).status).toBe(200);
    expect((await bot.ops(runId, 'k1', [deleteOp(second, onItem), deleteOp(quoted, onQuote)])).status).toBe(200);
    expect((await bot.complete(runId)).status).toBe(200);

    // Ana types in both blocks while they show as deleted.
    const ana = server.connect(doc.id, server.token('editor', { name: 'Ana' }));
    await ana.synced;
    const content = docParts(ana.ydoc).content;
    const itemText = (((content.get(1) as Y.XmlElement).get(1) as Y.XmlElement).get(0) as Y.XmlElement).get(0) as Y.XmlText;
    const quoteText = ((content.get(2) as Y.XmlElement).get(0) as Y.XmlElement).get(0) as Y.XmlText;
    itemText.insert(itemText.length, ', kept');
    quoteText.insert(quoteText.length, ' stay');
    await roundTrip(ana);

    expect((await server.api(`/api/runs/${runId}/items/${onItem}/accept`, { method: 'POST' })).body.state).toBe('review');
    expect((await server.api(`/api/runs/${runId}/accept`, { method: 'POST' })).body.state).toBe('accepted');
    const run = (await server.api(`/api/runs/${runId}`)).body as { changes: { blockId: string; note?: string }[] };
    const kept = 'Not applied: changed by Ana meanwhile; the block is kept.';
    expect(run.changes.map((change) => [change.blockId, change.note])).toEqual([
      [second.id, kept],
      [quoted.id, kept],
    ]);
    const after = await blocksOf(server, doc.id);
    expect(items(after).map((item) => [item.id, item.markdown])).toEqual([
      [items(doc.blocks)[0].id, 'first item'],
      [second.id, 'second item, kept'],
      [items(doc.blocks)[2].id, 'third item'],
    ]);
    expect(after.find((block) => block.id === quoted.id)?.markdown).toBe('quoted words stay');
  });

  it('[OP12] an insert after an item adds a sibling item', async () => {
    const { doc, second, instructionId, runId, bot } = await claimedOnSecondItem('insert after "between"');
    const applied = await bot.ops(runId, 'k1', [{ op: 'insert_after', blockId: second.id, markdown: 'between', instructionId }]);
    expect(applied.status).toBe(200);
    const after = await blocksOf(server, doc.id);
    expect(items(after).map((item) => item.markdown)).toEqual(['first item', 'second item', 'between', 'third item']);
    expect(items(after)[2].parentId).toBe(doc.blocks[1].id);
  });

  it('[OP12] a nested block a peer wrote without an id is listed with the id ops then address it by', async () => {
    const doc = await createDoc(server, 'Intro');
    const editor = server.connect(doc.id);
    await editor.synced;
    // A raw Yjs peer adds a list whose item has no id (as texts written before nested ids).
    editor.ydoc.transact(() => {
      const list = new Y.XmlElement('bullet_list');
      list.setAttribute('id', 'rawlist');
      const item = new Y.XmlElement('list_item');
      const paragraph = new Y.XmlElement('paragraph');
      paragraph.insert(0, [new Y.XmlText('raw item')]);
      item.insert(0, [paragraph]);
      list.insert(0, [item]);
      docParts(editor.ydoc).content.insert(1, [list]);
    });
    await waitFor(async () => (await blocksOf(server, doc.id)).length === 4);
    const blocks = await blocksOf(server, doc.id);
    const item = items(blocks)[0];
    expect(item).toMatchObject({ parentId: 'rawlist', markdown: 'raw item' });
    expect(item.id).toMatch(/^b[0-9a-f]{9}$/);
    const instructionId = await instruct(server, doc.id, item.id, 'delete');
    const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    const bot = agentApi(server, server.token('agent'));
    expect((await bot.claim(sent.body.runId)).status).toBe(200);
    expect((await bot.ops(sent.body.runId, 'k1', [deleteOp(item, instructionId)])).status).toBe(200);
    expect(items(await blocksOf(server, doc.id))).toEqual([]);
  });
});
