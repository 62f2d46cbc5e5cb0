import type { Node } from 'prosemirror-model';
import { describe, expect, it } from 'vitest';
import type { Role } from '../../shared/protocol/claims.ts';
import { readProseMirrorDoc } from '../../shared/model/doc-content.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { waitFor } from '../helpers/peer.ts';
import { agentApi, blocksOf, deleteOp, getRun, markdownOf, replaceOp, sentRun, titleUppercasedAndSecondDeleted } from '../helpers/runs.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * Review (docs/design.md, "The run", step 5; shared/PROTOCOL.md REV1–REV4): Accept run keeps the
 * changes and drops their marks; Discard run takes back exactly the run's changes. Both
 * survive a restart between the agent's write and the review.
 */

const server = useTestServer({}, 'test');
const connect = server.connect;

const markdown = '# Title\n\nalpha one\n\nbeta two\n\ngamma three';

async function answered(server: TestServer, docId: string) {
  const notes = (await server.api(`/api/docs/${docId}`)).body.annotations as { id: string; state: string; runId: string | null; status: string }[];
  return notes;
}

const agentAnswers = (doc: Awaited<ReturnType<typeof sentRun>>, token?: string) => titleUppercasedAndSecondDeleted(server, doc, token);

function changeMarks(doc: Node): string[] {
  const marks: string[] = [];
  doc.descendants((node) => {
    for (const mark of node.marks) if (mark.type.name === 'change') marks.push(`${node.text}:${mark.attrs.runId}`);
  });
  return marks;
}

describe('POST /api/runs/:runId/discard', () => {
  it('[REV2] takes back exactly the run, while a person’s edit elsewhere stays', async () => {
    const doc = await sentRun(server, markdown, ['uppercase', 'delete']);
    const editor = connect(doc.docId);
    await editor.synced;
    const bot = await agentAnswers(doc);
    await waitFor(async () => (await markdownOf(server, doc.docId)) === '# TITLE\n\nbeta two\n\ngamma three');
    // The deleted block stays in the text, pending, until the run is decided (OP7).
    await waitFor(() => readProseMirrorDoc(editor.ydoc).child(1).attrs.deleting !== null);
    appendToBlock(editor.ydoc, 3, ' and more');
    await waitFor(async () => (await markdownOf(server, doc.docId)).endsWith('gamma three and more'));
    expect((await bot.complete(doc.runId)).status).toBe(200);

    const discarded = await server.api(`/api/runs/${doc.runId}/discard`, { method: 'POST' });
    expect(discarded).toMatchObject({ status: 200, body: { state: 'discarded' } });
    expect(await markdownOf(server, doc.docId)).toBe('# Title\n\nalpha one\n\nbeta two\n\ngamma three and more');
    expect((await blocksOf(server, doc.docId)).map((block) => block.id)).toEqual(doc.blocks.map((block) => block.id));
    await waitFor(() => readProseMirrorDoc(editor.ydoc).childCount === 4);
    expect(readProseMirrorDoc(editor.ydoc).textContent).toBe('Titlealpha onebeta twogamma three and more');
    expect(changeMarks(readProseMirrorDoc(editor.ydoc))).toEqual([]);
    expect((await getRun(server, doc.runId)).state).toBe('discarded');
    expect((await answered(server, doc.docId)).map((note) => [note.state, note.runId])).toEqual([
      ['answered', doc.runId],
      ['answered', doc.runId],
    ]);
  });

  it('[REV3] pins the annotations of the text it brings back to that text again', async () => {
    const doc = await sentRun(server, markdown, ['uppercase', 'rewrite']);
    const bot = agentApi(server, server.token('agent'));
    expect((await bot.claim(doc.runId)).status).toBe(200);
    const [title, alpha] = doc.blocks;
    const ops = [replaceOp(title, '# TITLE', doc.instructionIds[0]), replaceOp(alpha, 'XYZ', doc.instructionIds[1])];
    expect((await bot.ops(doc.runId, 'k1', ops)).status).toBe(200);
    expect((await bot.complete(doc.runId)).status).toBe(200);
    await server.api(`/api/runs/${doc.runId}/discard`, { method: 'POST' });
    expect((await answered(server, doc.docId)).map((note) => note.status)).toEqual(['attached', 'attached']);
  });

  it('[REV4] restores the text after a restart between the agent’s write and the review', async () => {
    const doc = await sentRun(server, markdown, ['uppercase', 'delete']);
    const bot = await agentAnswers(doc);
    await server.restart();
    const [, , beta] = await blocksOf(server, doc.docId);
    expect(beta.markdown).toBe('gamma three');
    expect((await bot.complete(doc.runId)).status).toBe(200);
    await server.restart();
    expect(await markdownOf(server, doc.docId)).toBe('# TITLE\n\nbeta two\n\ngamma three');
    expect((await server.api(`/api/runs/${doc.runId}/discard`, { method: 'POST' })).status).toBe(200);
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
    expect((await answered(server, doc.docId)).map((note) => [note.state, note.status])).toEqual([
      ['answered', 'attached'],
      ['answered', 'attached'],
    ]);
  });

  it('[REV4] takes back batches applied on either side of a restart, as one', async () => {
    const doc = await sentRun(server, markdown, ['replace "one" with "1"', 'lowercase', 'delete']);
    const bot = agentApi(server, server.token('agent', { sub: 'steady' }));
    await bot.claim(doc.runId);
    const blocks = doc.blocks;
    expect((await bot.ops(doc.runId, 'a', [replaceOp(blocks[0], '# Title, first', doc.instructionIds[0])])).status).toBe(200);
    await server.restart();
    const now = await blocksOf(server, doc.docId);
    expect((await bot.ops(doc.runId, 'b', [replaceOp(now[0], '# Second title', doc.instructionIds[0])])).status).toBe(200);
    expect((await bot.ops(doc.runId, 'c', [deleteOp(now[2], doc.instructionIds[2])])).status).toBe(200);
    await server.restart();
    await bot.complete(doc.runId);
    expect(await markdownOf(server, doc.docId)).toBe('# Second title\n\nalpha one\n\ngamma three');
    await server.api(`/api/runs/${doc.runId}/discard`, { method: 'POST' });
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
  });
});

describe('POST /api/runs/:runId/accept', () => {
  it('[REV1] keeps the changes and removes their marks', async () => {
    const doc = await sentRun(server, markdown, ['uppercase', 'delete']);
    const viewer = connect(doc.docId, server.token('viewer'));
    await viewer.synced;
    await agentAnswers(doc).then((bot) => bot.complete(doc.runId));
    await waitFor(() => readProseMirrorDoc(viewer.ydoc).child(1).attrs.deleting !== null);
    // y-prosemirror's diff keeps the "T": only what the run wrote anew is marked.
    expect(changeMarks(readProseMirrorDoc(viewer.ydoc))).toEqual([`ITLE:${doc.runId}`]);
    const accepted = await server.api(`/api/runs/${doc.runId}/accept`, { method: 'POST' });
    expect(accepted).toMatchObject({ status: 200, body: { state: 'accepted' } });
    await waitFor(() => changeMarks(readProseMirrorDoc(viewer.ydoc)).length === 0);
    // The deleted block, unchanged since the agent read it, is removed now (REV6).
    await waitFor(() => readProseMirrorDoc(viewer.ydoc).childCount === 3);
    expect(await markdownOf(server, doc.docId)).toBe('# TITLE\n\nbeta two\n\ngamma three');
    expect((await answered(server, doc.docId)).map((note) => note.state)).toEqual(['answered', 'answered']);
    const again = await server.api(`/api/runs/${doc.runId}/discard`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('NOT_IN_REVIEW');
    expect(await markdownOf(server, doc.docId)).toBe('# TITLE\n\nbeta two\n\ngamma three');
  });

  it('[REV4] works after a restart between the agent’s write and the review', async () => {
    const doc = await sentRun(server, markdown, ['uppercase', 'delete']);
    await agentAnswers(doc).then((bot) => bot.complete(doc.runId));
    await server.restart();
    expect((await server.api(`/api/runs/${doc.runId}/accept`, { method: 'POST' })).status).toBe(200);
    const viewer = connect(doc.docId, server.token('viewer'));
    await viewer.synced;
    expect(changeMarks(readProseMirrorDoc(viewer.ydoc))).toEqual([]);
    expect(await markdownOf(server, doc.docId)).toBe('# TITLE\n\nbeta two\n\ngamma three');
  });
});

describe('review refusals', () => {
  it('lets one of a concurrent Accept and Discard win; the other gets 409 NOT_IN_REVIEW', async () => {
    const doc = await sentRun(server, markdown, ['uppercase', 'delete']);
    await agentAnswers(doc).then((bot) => bot.complete(doc.runId));
    const [accept, discard] = await Promise.all([
      server.api(`/api/runs/${doc.runId}/accept`, { method: 'POST' }),
      server.api(`/api/runs/${doc.runId}/discard`, { method: 'POST' }),
    ]);
    expect([accept.status, discard.status].sort()).toEqual([200, 409]);
    const state = (await getRun(server, doc.runId)).state;
    expect(state).toBe(accept.status === 200 ? 'accepted' : 'discarded');
    expect(await markdownOf(server, doc.docId)).toBe(state === 'accepted' ? '# TITLE\n\nbeta two\n\ngamma three' : markdown);
  });

  it.each(['queued', 'claimed'])('answers 409 NOT_IN_REVIEW for a %s run and changes nothing', async (state) => {
    const doc = await sentRun(server, markdown, ['uppercase', 'delete']);
    if (state === 'claimed') await agentAnswers(doc);
    const text = await markdownOf(server, doc.docId);
    for (const decision of ['accept', 'discard']) {
      const answer = await server.api(`/api/runs/${doc.runId}/${decision}`, { method: 'POST' });
      expect(answer.status).toBe(409);
      expect(answer.body.error.code).toBe('NOT_IN_REVIEW');
    }
    expect((await getRun(server, doc.runId)).state).toBe(state);
    expect(await markdownOf(server, doc.docId)).toBe(text);
  });

  it.each<Role>(['commenter', 'viewer', 'agent'])('refuses a %s with 403', async (role) => {
    const doc = await sentRun(server, markdown, ['uppercase']);
    const token = server.token(role);
    for (const decision of ['accept', 'discard']) {
      const answer = await server.api(`/api/runs/${doc.runId}/${decision}`, { method: 'POST', token });
      expect(answer.status).toBe(403);
    }
  });

  it('answers 404 for an unknown run and 403 to an editor of another document', async () => {
    expect((await server.api('/api/runs/rnosuchrun00/accept', { method: 'POST' })).status).toBe(404);
    const doc = await sentRun(server, markdown, ['uppercase']);
    const other = await sentRun(server, 'x', ['delete']);
    const token = server.token('editor', { doc: other.docId });
    expect((await server.api(`/api/runs/${doc.runId}/discard`, { method: 'POST', token })).status).toBe(403);
  });

  it('lets the next run start once the last one is decided', async () => {
    const doc = await sentRun(server, markdown, ['uppercase', 'delete']);
    await agentAnswers(doc).then((bot) => bot.complete(doc.runId));
    expect((await server.api(`/api/docs/${doc.docId}/runs`, { method: 'POST' })).status).toBe(409);
    await server.api(`/api/runs/${doc.runId}/discard`, { method: 'POST' });
    expect((await server.api(`/api/docs/${doc.docId}/runs`, { method: 'POST' })).body.error.code).toBe('NOTHING_TO_SEND');
    const blocks = await blocksOf(server, doc.docId);
    await server.api(`/api/docs/${doc.docId}/annotations`, { method: 'POST', body: { kind: 'instruction', blockId: blocks[3].id, text: 'delete' } });
    expect((await server.api(`/api/docs/${doc.docId}/runs`, { method: 'POST' })).status).toBe(201);
  });
});
