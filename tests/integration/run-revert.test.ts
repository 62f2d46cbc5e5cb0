import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { docParts } from '../../shared/model/doc-layout.ts';
import { readProseMirrorDoc } from '../../shared/model/doc-content.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { waitFor } from '../helpers/peer.ts';
import { agentApi, blocksOf, getRun, instruct, markdownOf, replaceOp, sentRun, titleUppercasedAndSecondDeleted } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * Taking a decision back (shared/PROTOCOL.md REV8, REV9): Revert run takes back an accepted run
 * later, keeping everything written since; Undo discard puts a discarded run back in review
 * while its document stays open.
 */

const server = useTestServer({}, 'test');
const connect = server.connect;

const markdown = '# Title\n\nalpha one\n\nbeta two\n\ngamma three';

const post = (path: string, token?: string, body?: unknown) => server.api(path, { method: 'POST', token, body });

/** Run 1: the title uppercased, `alpha one` deleted; completed, in review. */
async function firstRun() {
  const doc = await sentRun(server, markdown, ['uppercase', 'delete']);
  const bot = await titleUppercasedAndSecondDeleted(server, doc);
  expect((await bot.complete(doc.runId)).status).toBe(200);
  return doc;
}

/** Run 1 decided by `decision` while an editor's replica (synced before the decision) is open. */
async function firstRunWithEditor(decision: 'accept' | 'discard') {
  const doc = await firstRun();
  const editor = connect(doc.docId);
  await editor.synced;
  expect((await post(`/api/runs/${doc.runId}/${decision}`)).status).toBe(200);
  return { doc, editor };
}

/** A second run on the document: `blockIndex`'s text replaced by `text`, then accepted. */
async function acceptedRun(docId: string, blockIndex: number, text: string): Promise<string> {
  const block = (await blocksOf(server, docId))[blockIndex];
  const instructionId = await instruct(server, docId, block.id, 'rewrite');
  const sent = await post(`/api/docs/${docId}/runs`);
  expect(sent.status).toBe(201);
  const bot = agentApi(server, server.token('agent'));
  expect((await bot.claim(sent.body.runId)).status).toBe(200);
  expect((await bot.ops(sent.body.runId, 'k1', [replaceOp(block, text, instructionId)])).status).toBe(200);
  expect((await bot.complete(sent.body.runId)).status).toBe(200);
  expect((await post(`/api/runs/${sent.body.runId}/accept`)).status).toBe(200);
  return sent.body.runId;
}

/** Replaces the whole text of the top-level block at `index`, as a person selecting it and typing would. */
function retype(ydoc: Y.Doc, index: number, text: string): void {
  const block = docParts(ydoc).content.get(index) as Y.XmlElement;
  ydoc.transact(() => {
    const ytext = block.toArray().find((child): child is Y.XmlText => child instanceof Y.XmlText)!;
    ytext.delete(0, ytext.length);
    ytext.insert(0, text);
  });
}

describe('POST /api/runs/:runId/revert', () => {
  it('[REV8] takes back an accepted run, keeping people’s edits and a later run', async () => {
    const { doc, editor } = await firstRunWithEditor('accept');
    await waitFor(async () => (await markdownOf(server, doc.docId)) === '# TITLE\n\nbeta two\n\ngamma three');
    await waitFor(() => readProseMirrorDoc(editor.ydoc).childCount === 3);
    appendToBlock(editor.ydoc, 0, '!');
    appendToBlock(editor.ydoc, 2, ' and more');
    await waitFor(async () => (await markdownOf(server, doc.docId)) === '# TITLE!\n\nbeta two\n\ngamma three and more');
    await acceptedRun(doc.docId, 1, 'BETA TWO');

    const reverted = await post(`/api/runs/${doc.runId}/revert`);
    expect(reverted).toMatchObject({ status: 200, body: { state: 'accepted', notReverted: [] } });
    expect(await markdownOf(server, doc.docId)).toBe('# Title!\n\nalpha one\n\nBETA TWO\n\ngamma three and more');
    expect((await blocksOf(server, doc.docId)).map((block) => block.id)).toEqual(doc.blocks.map((block) => block.id));
    await waitFor(() => readProseMirrorDoc(editor.ydoc).textContent === 'Title!alpha oneBETA TWOgamma three and more');
    const run = await getRun(server, doc.runId);
    expect(run.state).toBe('accepted');
    expect(run.reverted).toMatchObject({ by: { id: 'owner' }, notReverted: [] });
    const audit = (await server.api(`/api/docs/${doc.docId}/audit`)).body.entries as { action: string; runId?: string }[];
    expect(audit.find((entry) => entry.action === 'run.reverted')).toMatchObject({ runId: doc.runId });
  });

  it('[REV8] reverts after a restart between Accept and the revert, bringing back the block Accept removed', async () => {
    const doc = await firstRun();
    expect((await post(`/api/runs/${doc.runId}/accept`)).status).toBe(200);
    expect(await markdownOf(server, doc.docId)).toBe('# TITLE\n\nbeta two\n\ngamma three');
    await server.restart();
    const editor = connect(doc.docId);
    await editor.synced;
    appendToBlock(editor.ydoc, 1, ' later');
    await waitFor(async () => (await markdownOf(server, doc.docId)) === '# TITLE\n\nbeta two later\n\ngamma three');
    await server.restart();
    expect((await post(`/api/runs/${doc.runId}/revert`)).status).toBe(200);
    expect(await markdownOf(server, doc.docId)).toBe('# Title\n\nalpha one\n\nbeta two later\n\ngamma three');
  });

  it('[REV8] takes back what it can and lists the change whose text was rewritten since', async () => {
    const { doc, editor } = await firstRunWithEditor('accept');
    await waitFor(() => readProseMirrorDoc(editor.ydoc).childCount === 3);
    retype(editor.ydoc, 0, 'Heading');
    await waitFor(async () => (await markdownOf(server, doc.docId)) === '# Heading\n\nbeta two\n\ngamma three');

    const reverted = await post(`/api/runs/${doc.runId}/revert`);
    expect(reverted.status).toBe(200);
    expect(reverted.body.notReverted).toEqual([{ blockId: doc.blocks[0].id, instructionId: doc.instructionIds[0], reason: 'rewritten' }]);
    expect(await markdownOf(server, doc.docId)).toBe('# Heading\n\nalpha one\n\nbeta two\n\ngamma three');
    expect((await getRun(server, doc.runId)).reverted?.notReverted).toEqual(reverted.body.notReverted);
  });

  it('[REV8] lists a change whose block was deleted since as removed, and reverts the rest', async () => {
    const { doc, editor } = await firstRunWithEditor('accept');
    await waitFor(() => readProseMirrorDoc(editor.ydoc).childCount === 3);
    docParts(editor.ydoc).content.delete(0, 1);
    await waitFor(async () => (await markdownOf(server, doc.docId)) === 'beta two\n\ngamma three');

    const reverted = await post(`/api/runs/${doc.runId}/revert`);
    expect(reverted.status).toBe(200);
    expect(reverted.body.notReverted).toEqual([{ blockId: doc.blocks[0].id, instructionId: doc.instructionIds[0], reason: 'removed' }]);
    expect(await markdownOf(server, doc.docId)).toBe('alpha one\n\nbeta two\n\ngamma three');
  });

  it('[REV8] pins the annotations of the text it brings back to that text again', async () => {
    const doc = await firstRun();
    expect((await post(`/api/runs/${doc.runId}/accept`)).status).toBe(200);
    const statuses = async () => ((await server.api(`/api/docs/${doc.docId}`)).body.annotations as { status: string }[]).map((note) => note.status);
    // The instruction on `alpha one` lost its text with the block Accept removed.
    expect(await statuses()).toEqual(['attached', 'orphaned']);
    expect((await post(`/api/runs/${doc.runId}/revert`)).status).toBe(200);
    expect(await statuses()).toEqual(['attached', 'attached']);
  });

  it('[REV8] answers 409 for a run that is not accepted or already reverted, and changes nothing', async () => {
    const doc = await firstRun();
    expect(await post(`/api/runs/${doc.runId}/revert`)).toMatchObject({ status: 409, body: { error: { code: 'NOT_ACCEPTED' } } });
    expect(await markdownOf(server, doc.docId)).toBe('# TITLE\n\nbeta two\n\ngamma three');
    expect((await post(`/api/runs/${doc.runId}/accept`)).status).toBe(200);
    expect((await post(`/api/runs/${doc.runId}/revert`)).status).toBe(200);
    expect(await post(`/api/runs/${doc.runId}/revert`)).toMatchObject({ status: 409, body: { error: { code: 'ALREADY_REVERTED' } } });
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
  });

  it('[REV8] lets only editors revert, and answers 404 for an unknown run', async () => {
    const doc = await firstRun();
    expect((await post(`/api/runs/${doc.runId}/accept`)).status).toBe(200);
    for (const role of ['commenter', 'viewer', 'agent'] as const) {
      expect(await post(`/api/runs/${doc.runId}/revert`, server.token(role))).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
    }
    const other = server.token('editor', { doc: 'someotherdoc' });
    expect((await post(`/api/runs/${doc.runId}/revert`, other)).status).toBe(403);
    expect(await post('/api/runs/nosuchrun00/revert')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect(await post('/api/runs/%20bad/revert')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect(await markdownOf(server, doc.docId)).toBe('# TITLE\n\nbeta two\n\ngamma three');
  });
});

describe('POST /api/runs/:runId/undo-discard', () => {
  it('[REV9] puts a discarded run back in review with its changes, keeping edits made meanwhile', async () => {
    const { doc, editor } = await firstRunWithEditor('discard');
    await waitFor(() => readProseMirrorDoc(editor.ydoc).textContent === 'Titlealpha onebeta twogamma three');
    appendToBlock(editor.ydoc, 3, ' and more');
    await waitFor(async () => (await markdownOf(server, doc.docId)).endsWith('gamma three and more'));

    expect(await post(`/api/runs/${doc.runId}/undo-discard`)).toMatchObject({ status: 200, body: { state: 'review' } });
    expect((await getRun(server, doc.runId)).state).toBe('review');
    expect(await markdownOf(server, doc.docId)).toBe('# TITLE\n\nbeta two\n\ngamma three and more');
    const notes = (await server.api(`/api/docs/${doc.docId}`)).body.annotations as { state: string }[];
    expect(notes.map((note) => note.state)).toEqual(['answered', 'answered']);
    const audit = (await server.api(`/api/docs/${doc.docId}/audit`)).body.entries as { action: string }[];
    expect(audit.map((entry) => entry.action)).toContain('run.discard-undone');

    expect((await post(`/api/runs/${doc.runId}/accept`)).status).toBe(200);
    expect(await markdownOf(server, doc.docId)).toBe('# TITLE\n\nbeta two\n\ngamma three and more');
    await waitFor(() => readProseMirrorDoc(editor.ydoc).textContent === 'TITLEbeta twogamma three and more');
  });

  it('[REV9] can be discarded again after the undo, restoring the text before the run', async () => {
    const { doc } = await firstRunWithEditor('discard');
    expect((await post(`/api/runs/${doc.runId}/undo-discard`)).status).toBe(200);
    expect((await post(`/api/runs/${doc.runId}/discard`)).status).toBe(200);
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
  });

  it('[REV9] answers 409 once the window has closed: after a restart, or after the next send', async () => {
    const doc = await firstRun();
    expect((await post(`/api/runs/${doc.runId}/discard`)).status).toBe(200);
    await server.restart();
    expect(await post(`/api/runs/${doc.runId}/undo-discard`)).toMatchObject({ status: 409, body: { error: { code: 'UNDO_WINDOW_CLOSED' } } });
    expect((await getRun(server, doc.runId)).state).toBe('discarded');

    const next = await firstRun();
    const editor = connect(next.docId);
    await editor.synced;
    expect((await post(`/api/runs/${next.runId}/discard`)).status).toBe(200);
    await instruct(server, next.docId, next.blocks[2].id, 'uppercase');
    expect((await post(`/api/docs/${next.docId}/runs`)).status).toBe(201);
    expect(await post(`/api/runs/${next.runId}/undo-discard`)).toMatchObject({ status: 409, body: { error: { code: 'UNDO_WINDOW_CLOSED' } } });
    expect(await markdownOf(server, next.docId)).toBe(markdown);
  });

  it('[REV9] answers 409 for a run that is not discarded and 403 to all but editors', async () => {
    const doc = await firstRun();
    const editor = connect(doc.docId);
    await editor.synced;
    expect(await post(`/api/runs/${doc.runId}/undo-discard`)).toMatchObject({ status: 409, body: { error: { code: 'NOT_DISCARDED' } } });
    expect((await post(`/api/runs/${doc.runId}/discard`)).status).toBe(200);
    for (const role of ['commenter', 'viewer', 'agent'] as const) {
      expect((await post(`/api/runs/${doc.runId}/undo-discard`, server.token(role))).status).toBe(403);
    }
    expect((await getRun(server, doc.runId)).state).toBe('discarded');
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
  });
});
