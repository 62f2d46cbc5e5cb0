import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { readProseMirrorDoc } from '../../shared/model/doc-content.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { waitFor, type Peer } from '../helpers/peer.ts';
import { agentApi, deleteOp, getRun, markdownOf, replaceOp, sentRun } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * What people type while a run changes the text survives the review (shared/PROTOCOL.md OP7,
 * REV6, REV7), through the real server, real providers and SQLite: typing inside a block the
 * agent deletes, made on a tab that was offline while the batch applied (or racing it), and
 * typing inside the blocks the agent wrote.
 */

const server = useTestServer({}, 'test');

const markdown = '# Title\n\nalpha one\n\nbeta two';

const connect = (docId: string, token: string, ydoc?: Y.Doc): Peer => server.connect(docId, token, ydoc);

function textOf(ydoc: Y.Doc): string[] {
  const texts: string[] = [];
  readProseMirrorDoc(ydoc).forEach((block) => texts.push(block.textContent));
  return texts;
}

/**
 * A run deleting "alpha one" while Ana, offline, types in it: her tab holds the text as the
 * agent read it, she types, the agent's delete applies, then her tab connects and syncs.
 */
async function deleteWhileAnaTypesOffline() {
  const doc = await sentRun(server, markdown, ['uppercase', 'delete']);
  const ana = server.token('editor', { name: 'Ana' });
  const online = connect(doc.docId, ana);
  await online.synced;
  const offline = new Y.Doc();
  Y.applyUpdate(offline, Y.encodeStateAsUpdate(online.ydoc));
  appendToBlock(offline, 1, ' and Ana’s words');

  const bot = agentApi(server, server.token('agent'));
  expect((await bot.claim(doc.runId)).status).toBe(200);
  const [, alpha] = doc.blocks;
  const deleted = await bot.ops(doc.runId, 'k1', [deleteOp(alpha, doc.instructionIds[1])]);
  expect(deleted.status).toBe(200);
  expect((await bot.complete(doc.runId)).status).toBe(200);

  const back = connect(doc.docId, ana, offline);
  await back.synced;
  await waitFor(() => textOf(online.ydoc).includes('alpha one and Ana’s words'));
  return { doc, online };
}

/** The run of `deleteWhileAnaTypesOffline` decided by `decision`: either way, the block stays with Ana's words, unmarked, for everyone. */
async function decidedKeepingAnasWords(decision: 'accept' | 'discard') {
  const { doc, online } = await deleteWhileAnaTypesOffline();
  expect((await server.api(`/api/runs/${doc.runId}/${decision}`, { method: 'POST' })).status).toBe(200);
  expect(await markdownOf(server, doc.docId)).toBe('# Title\n\nalpha one and Ana’s words\n\nbeta two');
  await waitFor(() => readProseMirrorDoc(online.ydoc).child(1).attrs.deleting === null);
  expect(textOf(online.ydoc)).toEqual(['Title', 'alpha one and Ana’s words', 'beta two']);
  return doc;
}

/** A run of `instructions` claimed by the agent, with the editor `name` connected to its document. */
async function claimedWhilePersonWatches(instructions: string[], name: string) {
  const doc = await sentRun(server, markdown, instructions);
  const person = connect(doc.docId, server.token('editor', { name }));
  await person.synced;
  const bot = agentApi(server, server.token('agent'));
  expect((await bot.claim(doc.runId)).status).toBe(200);
  return { doc, person, bot };
}

describe('typing inside a block the run deletes', () => {
  it('[OP7] shows the deleted block to everyone, marked, with what a person typed in it meanwhile', async () => {
    const { doc, online } = await deleteWhileAnaTypesOffline();
    const pending = readProseMirrorDoc(online.ydoc).child(1);
    expect(pending.textContent).toBe('alpha one and Ana’s words');
    expect(JSON.parse(pending.attrs.deleting)).toMatchObject({ runId: doc.runId, blockId: doc.blocks[1].id });
    // The API and agents read the text as Accept would leave it.
    expect(await markdownOf(server, doc.docId)).toBe('# Title\n\nbeta two');
  });

  it('[REV2][OP7] Discard keeps what the person typed in the block the run deleted', async () => {
    await decidedKeepingAnasWords('discard');
  });

  it('[REV6] Accept keeps a block a person changed after the run read it, and says who changed it', async () => {
    const doc = await decidedKeepingAnasWords('accept');
    const run = await getRun(server, doc.runId);
    expect(run.changes).toEqual([
      expect.objectContaining({ op: 'delete_block', blockId: doc.blocks[1].id, note: 'Not applied: changed by Ana meanwhile; the block is kept.' }),
    ]);
  });

  it('[REV6] keeps the note after a restart, and Accept after a restart still keeps the changed block', async () => {
    const { doc } = await deleteWhileAnaTypesOffline();
    await server.restart();
    expect((await server.api(`/api/runs/${doc.runId}/accept`, { method: 'POST' })).status).toBe(200);
    expect(await markdownOf(server, doc.docId)).toBe('# Title\n\nalpha one and Ana’s words\n\nbeta two');
    // After a restart the server no longer knows who wrote what: the note says "someone".
    expect((await getRun(server, doc.runId)).changes[0].note).toBe('Not applied: changed by someone meanwhile; the block is kept.');
    await server.restart();
    expect((await getRun(server, doc.runId)).changes[0].note).toBe('Not applied: changed by someone meanwhile; the block is kept.');
  });

  it('[OP2][OP7] keeps the typing whichever lands first when a person types while the batch applies', async () => {
    const { doc, person, bot } = await claimedWhilePersonWatches(['uppercase', 'delete'], 'Bo');
    const [, alpha] = doc.blocks;
    appendToBlock(person.ydoc, 1, ' typed now');
    const batch = await bot.ops(doc.runId, 'k1', [deleteOp(alpha, doc.instructionIds[1])]);
    // Either the typing reached the server first (the agent's read is stale) or the batch did.
    expect([200, 409]).toContain(batch.status);
    if (batch.status === 409) expect(batch.body.error.code).toBe('STALE_BLOCK');
    expect((await bot.complete(doc.runId)).status).toBe(200);
    expect((await server.api(`/api/runs/${doc.runId}/accept`, { method: 'POST' })).status).toBe(200);
    await waitFor(() => textOf(person.ydoc).includes('alpha one typed now'));
    expect(await markdownOf(server, doc.docId)).toBe('# Title\n\nalpha one typed now\n\nbeta two');
  });
});

describe('typing inside the blocks the run writes', () => {
  it('[REV7] Discard keeps what a person typed in a block the run inserted, and nothing of the run', async () => {
    const { doc, person, bot } = await claimedWhilePersonWatches(['add a paragraph', 'rewrite as a heading'], 'Cy');
    const [title, alpha] = doc.blocks;
    const ops = [
      { op: 'insert_after', blockId: title.id, markdown: 'fresh words', instructionId: doc.instructionIds[0] },
      replaceOp(alpha, '## alpha heading', doc.instructionIds[1]),
    ];
    expect((await bot.ops(doc.runId, 'k1', ops)).status).toBe(200);
    expect((await bot.complete(doc.runId)).status).toBe(200);
    await waitFor(() => textOf(person.ydoc).includes('fresh words') && textOf(person.ydoc).includes('alpha heading'));
    const at = (text: string) => textOf(person.ydoc).indexOf(text);
    appendToBlock(person.ydoc, at('fresh words'), ' Cy1');
    appendToBlock(person.ydoc, at('alpha heading'), ' Cy2');
    await waitFor(async () => (await markdownOf(server, doc.docId)).includes('Cy2'));

    expect((await server.api(`/api/runs/${doc.runId}/discard`, { method: 'POST' })).status).toBe(200);
    expect(await markdownOf(server, doc.docId)).toBe('# Title\n\n Cy1\n\nalpha one\n\n##  Cy2\n\nbeta two');
    await waitFor(() => textOf(person.ydoc).join('|') === 'Title| Cy1|alpha one| Cy2|beta two');
    // Every block still has its own id: the spared heading no longer carries alpha's.
    const ids = docParts(person.ydoc).content.toArray().map((block) => (block as Y.XmlElement).getAttribute('id'));
    expect(new Set(ids).size).toBe(5);
    expect(ids[2]).toBe(alpha.id);
  });
});
