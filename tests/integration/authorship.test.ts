import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { waitFor } from '../helpers/peer.ts';
import { agentApi, agentRewroteFirstBlock, blocksOf, instruct, markdownOf, replaceOp } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { connectYjsPeer } from '../helpers/yjs-peer.ts';

/*
 * Who wrote each piece of the current text (shared/PROTOCOL.md WHO1–WHO6): people by the
 * token of the connection that sent their items, agents by the run and instruction the server
 * wrote for, kept in the store across restarts.
 */

const server = useTestServer({}, 'test');
const post = (path: string, body?: unknown, token?: string) => server.api(path, { method: 'POST', body, token });

type Span = { text: string; by: Record<string, unknown> };
async function authorship(docId: string): Promise<{ blockId: string; spans: Span[] }[]> {
  const answer = await server.api(`/api/docs/${docId}/authorship`);
  expect(answer.status).toBe(200);
  return answer.body.blocks;
}
const texts = (spans: Span[]) => spans.map((span) => [span.text, span.by.name]);

/** Two people on their own WebSockets, each appending to block 0 in turn. */
async function twoPeopleTyped(docId: string) {
  const ana = server.connect(docId, server.token('editor', { sub: 'ana', name: 'Ana' }));
  const bo = server.connect(docId, server.token('editor', { sub: 'bo', name: 'Bo' }));
  await Promise.all([ana.synced, bo.synced]);
  appendToBlock(ana.ydoc, 0, ' from Ana');
  await waitFor(async () => (await markdownOf(server, docId)) === 'hello from Ana');
  appendToBlock(bo.ydoc, 0, ' and Bo');
  await waitFor(async () => (await markdownOf(server, docId)) === 'hello from Ana and Bo');
  return { ana, bo };
}

describe('GET /api/docs/:id/authorship', () => {
  it('[WHO1] [WHO6] names the creator of the imported text and each person who typed over a WebSocket', async () => {
    const docId = await server.createDoc('Two people', 'hello');
    await twoPeopleTyped(docId);
    const [block] = await authorship(docId);
    expect(block.blockId).toBe((await blocksOf(server, docId))[0].id);
    expect(block.spans).toEqual([
      { text: 'hello', by: { kind: 'person', name: 'Owner' } },
      { text: ' from Ana', by: { kind: 'person', name: 'Ana' } },
      { text: ' and Bo', by: { kind: 'person', name: 'Bo' } },
    ]);
  });

  it('[WHO3] keeps an accepted agent’s text as the agent’s, with its model, run, instruction and who accepted it', async () => {
    const docId = await server.createDoc('Agent', 'hello');
    const { runId, instructionId } = await agentRewroteFirstBlock(server, docId, 'hello world', { model: 'fake-model-1' });
    const inReview = await authorship(docId);
    expect(inReview[0].spans.at(-1)).toEqual({ text: ' world', by: { kind: 'agent', name: 'Scribe', runId, instructionId, model: 'fake-model-1' } });

    expect((await post(`/api/runs/${runId}/accept`)).status).toBe(200);
    const accepted = await authorship(docId);
    expect(accepted[0].spans).toEqual([
      { text: 'hello', by: { kind: 'person', name: 'Owner' } },
      { text: ' world', by: { kind: 'agent', name: 'Scribe', runId, instructionId, model: 'fake-model-1', acceptedBy: 'Owner' } },
    ]);

    await server.restart();
    expect(await authorship(docId)).toEqual(accepted);
  });

  it('[WHO3] drops the agent’s text from the authorship when its run is discarded or reverted', async () => {
    const discarded = await server.createDoc('Discarded', 'hello');
    const first = await agentRewroteFirstBlock(server, discarded, 'hello world', { model: 'fake-model-1' });
    expect((await post(`/api/runs/${first.runId}/discard`)).status).toBe(200);
    expect(texts((await authorship(discarded))[0].spans)).toEqual([['hello', 'Owner']]);

    const reverted = await server.createDoc('Reverted', 'hello');
    const second = await agentRewroteFirstBlock(server, reverted, 'hello there', { model: 'fake-model-1' });
    expect((await post(`/api/runs/${second.runId}/accept`)).status).toBe(200);
    expect(texts((await authorship(reverted))[0].spans)).toEqual([['hello', 'Owner'], [' there', 'Scribe']]);
    expect((await post(`/api/runs/${second.runId}/revert`)).status).toBe(200);
    expect(texts((await authorship(reverted))[0].spans)).toEqual([['hello', 'Owner']]);
  });

  it('[WHO4] gives the text a Discard or a Revert brings back to the people who wrote it, also after a restart', async () => {
    const people = [['hello', 'Owner'], [' from Ana', 'Ana'], [' and Bo', 'Bo']];
    const discarded = await server.createDoc('Overwritten, discarded', 'hello');
    const typed = await twoPeopleTyped(discarded);
    const first = await agentRewroteFirstBlock(server, discarded, 'HELLO', { model: 'fake-model-1' });
    expect(texts((await authorship(discarded))[0].spans)).toEqual([['HELLO', 'Scribe']]);
    expect((await post(`/api/runs/${first.runId}/discard`)).status).toBe(200);
    expect(texts((await authorship(discarded))[0].spans)).toEqual(people);

    const reverted = await server.createDoc('Overwritten, reverted', 'hello');
    await twoPeopleTyped(reverted);
    const second = await agentRewroteFirstBlock(server, reverted, 'HELLO', { model: 'fake-model-1' });
    expect((await post(`/api/runs/${second.runId}/accept`)).status).toBe(200);
    expect(texts((await authorship(reverted))[0].spans)).toEqual([['HELLO', 'Scribe']]);
    expect((await post(`/api/runs/${second.runId}/revert`)).status).toBe(200);
    expect(texts((await authorship(reverted))[0].spans)).toEqual(people);

    typed.ana.destroy();
    typed.bo.destroy();
    await server.restart();
    expect(texts((await authorship(discarded))[0].spans)).toEqual(people);
    expect(texts((await authorship(reverted))[0].spans)).toEqual(people);
  });

  it('[WHO3] names who accepted each instruction’s change when a run is decided item by item', async () => {
    const docId = await server.createDoc('Items', 'first\n\nsecond');
    const blocks = await blocksOf(server, docId);
    const ids = [await instruct(server, docId, blocks[0].id, 'one'), await instruct(server, docId, blocks[1].id, 'two')];
    const sent = await post(`/api/docs/${docId}/runs`);
    const runId: string = sent.body.runId;
    const bot = agentApi(server, server.token('agent', { sub: 'scribe', name: 'Scribe' }));
    expect((await bot.claim(runId)).status).toBe(200);
    expect((await bot.ops(runId, 'k1', [replaceOp(blocks[0], 'first!', ids[0]), replaceOp(blocks[1], 'second!', ids[1])])).status).toBe(200);
    expect((await bot.complete(runId)).status).toBe(200);
    const ana = server.token('editor', { sub: 'ana', name: 'Ana' });
    expect((await post(`/api/runs/${runId}/items/${ids[0]}/accept`, undefined, ana)).status).toBe(200);
    const oneAccepted = await authorship(docId);
    expect(oneAccepted.map((block) => block.spans.at(-1)!.by.acceptedBy)).toEqual(['Ana', undefined]);
    expect((await post(`/api/runs/${runId}/accept`, undefined, server.token('editor', { sub: 'bo', name: 'Bo' }))).status).toBe(200);
    const both = await authorship(docId);
    expect(both.map((block) => [block.spans.at(-1)!.text, block.spans.at(-1)!.by.instructionId, block.spans.at(-1)!.by.acceptedBy])).toEqual([
      ['!', ids[0], 'Ana'],
      ['!', ids[1], 'Bo'],
    ]);
  });

  it('[WHO1] keeps who wrote what across a restart', async () => {
    const docId = await server.createDoc('Restart', 'hello');
    const { ana, bo } = await twoPeopleTyped(docId);
    const before = await authorship(docId);
    ana.destroy();
    bo.destroy();
    await server.restart();
    expect(await authorship(docId)).toEqual(before);
    expect(texts(before[0].spans)).toEqual([['hello', 'Owner'], [' from Ana', 'Ana'], [' and Bo', 'Bo']]);
  });

  it('[WHO2] keeps a client id\'s first owner: items another connection sends under it apply and stay that owner\'s', async () => {
    const docId = await server.createDoc('Forgery', 'hello');
    const { ana } = await twoPeopleTyped(docId);
    const forger = new Y.Doc();
    const mallory = server.track(connectYjsPeer({ wsUrl: server.wsUrl, name: docId, token: server.token('editor', { sub: 'mallory', name: 'Mallory' }), ydoc: forger }));
    await mallory.synced;
    // Set after the sync: Yjs gives a doc a new id when it receives items of its own id.
    const own = forger.clientID;
    forger.clientID = ana.ydoc.clientID;
    appendToBlock(forger, 0, ' forged');
    forger.clientID = own;
    // Applied, as a relay of Ana's own items would be; Mallory's own typing is Mallory's.
    await waitFor(async () => (await markdownOf(server, docId)) === 'hello from Ana and Bo forged', 10_000);
    appendToBlock(forger, 0, ' signed');
    await waitFor(async () => (await markdownOf(server, docId)) === 'hello from Ana and Bo forged signed', 10_000);
    expect(texts((await authorship(docId))[0].spans)).toEqual([['hello', 'Owner'], [' from Ana', 'Ana'], [' and Bo', 'Bo'], [' forged', 'Ana'], [' signed', 'Mallory']]);
    expect(mallory.provider.wsconnected).toBe(true);
  });

  it('[WHO1] refuses a reader without access and an unknown document', async () => {
    const docId = await server.createDoc('Private', 'hello');
    expect((await server.api(`/api/docs/${docId}/authorship`, { token: server.token('viewer', { doc: 'other' }) })).status).toBe(403);
    expect((await server.api('/api/docs/nope/authorship')).status).toBe(404);
  });
});

describe('text the server writes for a person', () => {
  it('[WHO6] gives an import into the document to whoever imported it, and a duplicate to whoever made it', async () => {
    const docId = await server.createDoc('Imports', 'hello');
    const ana = server.token('editor', { sub: 'ana', name: 'Ana' });
    const imported = await post(`/api/docs/${docId}/import`, { format: 'markdown', source: 'added by import' }, ana);
    expect(imported.status).toBe(200);
    expect((await authorship(docId)).map((block) => texts(block.spans))).toEqual([[['hello', 'Owner']], [['added by import', 'Ana']]]);

    const copy = await post(`/api/docs/${docId}/duplicate`, {}, server.token('editor', { sub: 'bo', name: 'Bo' }));
    expect(copy.status).toBe(201);
    expect((await authorship(copy.body.id)).map((block) => texts(block.spans))).toEqual([[['hello', 'Bo']], [['added by import', 'Bo']]]);
  });
});
