import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { docParts } from '../../shared/model/doc-layout.ts';
import { readProseMirrorDoc } from '../../shared/model/doc-content.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { waitFor } from '../helpers/peer.ts';
import { getRun, markdownOf, sentRun, titleUppercasedAndSecondDeleted } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * Undo revert (shared/PROTOCOL.md REV14): a revert can be taken back while its document stays
 * open, bringing the run's changes back exactly and keeping what people wrote since.
 */

const server = useTestServer({}, 'test');
const connect = server.connect;

const markdown = '# Title\n\nalpha one\n\nbeta two\n\ngamma three';
const accepted = '# TITLE\n\nbeta two\n\ngamma three';

const post = (path: string, token?: string, body?: unknown) => server.api(path, { method: 'POST', token, body });

/** Run 1 (the title uppercased, `alpha one` deleted) accepted and reverted, with an editor's replica open throughout. */
async function revertedRun() {
  const doc = await sentRun(server, markdown, ['uppercase', 'delete']);
  const bot = await titleUppercasedAndSecondDeleted(server, doc);
  expect((await bot.complete(doc.runId)).status).toBe(200);
  const editor = connect(doc.docId);
  await editor.synced;
  expect((await post(`/api/runs/${doc.runId}/accept`)).status).toBe(200);
  await waitFor(async () => (await markdownOf(server, doc.docId)) === accepted);
  expect((await post(`/api/runs/${doc.runId}/revert`)).status).toBe(200);
  expect(await markdownOf(server, doc.docId)).toBe(markdown);
  await waitFor(() => readProseMirrorDoc(editor.ydoc).childCount === 4);
  return { doc, editor };
}

describe('POST /api/runs/:runId/undo-revert', () => {
  it('[REV14] brings the run’s changes back exactly, keeps typing made since, and the run can be reverted again', async () => {
    const { doc, editor } = await revertedRun();
    appendToBlock(editor.ydoc, 0, '!');
    appendToBlock(editor.ydoc, 3, ' and more');
    await waitFor(async () => (await markdownOf(server, doc.docId)) === '# Title!\n\nalpha one\n\nbeta two\n\ngamma three and more');

    const undone = await post(`/api/runs/${doc.runId}/undo-revert`);
    expect(undone).toMatchObject({ status: 200, body: { state: 'accepted' } });
    expect(await markdownOf(server, doc.docId)).toBe('# TITLE!\n\nbeta two\n\ngamma three and more');
    await waitFor(() => readProseMirrorDoc(editor.ydoc).textContent === 'TITLE!beta twogamma three and more');
    const run = await getRun(server, doc.runId);
    expect(run).toMatchObject({ state: 'accepted', reverted: null });
    const audit = (await server.api(`/api/docs/${doc.docId}/audit`)).body.entries as { action: string; runId?: string }[];
    expect(audit.find((entry) => entry.action === 'run.revert-undone')).toMatchObject({ runId: doc.runId });

    // Revertible again, from the scope the undo stored; and that revert can be undone in turn.
    expect(await post(`/api/runs/${doc.runId}/revert`)).toMatchObject({ status: 200, body: { notReverted: [] } });
    expect(await markdownOf(server, doc.docId)).toBe('# Title!\n\nalpha one\n\nbeta two\n\ngamma three and more');
    expect((await post(`/api/runs/${doc.runId}/undo-revert`)).status).toBe(200);
    expect(await markdownOf(server, doc.docId)).toBe('# TITLE!\n\nbeta two\n\ngamma three and more');
  });

  it('[REV14] answers 409 for a run not reverted, and once the revert was undone', async () => {
    const { doc } = await revertedRun();
    expect((await post(`/api/runs/${doc.runId}/undo-revert`)).status).toBe(200);
    const again = await post(`/api/runs/${doc.runId}/undo-revert`);
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'NOT_REVERTED' } } });
    expect(await markdownOf(server, doc.docId)).toBe(accepted);
    expect(await post(`/api/runs/${doc.runId}/undo-revert`, server.token('commenter'))).toMatchObject({ status: 403 });
  });

  it('[REV14] answers UNDO_WINDOW_CLOSED when the text the revert brought back was changed since, changing nothing', async () => {
    const { doc, editor } = await revertedRun();
    // A person rewrites the title the revert restored: the run's title would come back beside it.
    const title = docParts(editor.ydoc).content.get(0) as Y.XmlElement;
    const text = title.toArray().find((child): child is Y.XmlText => child instanceof Y.XmlText)!;
    editor.ydoc.transact(() => {
      text.delete(0, text.length);
      text.insert(0, 'Heading');
    });
    const rewritten = '# Heading\n\nalpha one\n\nbeta two\n\ngamma three';
    await waitFor(async () => (await markdownOf(server, doc.docId)) === rewritten);
    const closed = await post(`/api/runs/${doc.runId}/undo-revert`);
    expect(closed).toMatchObject({ status: 409, body: { error: { code: 'UNDO_WINDOW_CLOSED', message: expect.stringContaining('changed since') } } });
    expect(await markdownOf(server, doc.docId)).toBe(rewritten);
    expect((await getRun(server, doc.runId)).reverted).not.toBeNull();
  });

  it('[REV14] answers UNDO_WINDOW_CLOSED after a restart, changing nothing', async () => {
    const { doc, editor } = await revertedRun();
    editor.provider.destroy();
    await server.restart();
    const closed = await post(`/api/runs/${doc.runId}/undo-revert`);
    expect(closed).toMatchObject({ status: 409, body: { error: { code: 'UNDO_WINDOW_CLOSED' } } });
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
    expect((await getRun(server, doc.runId)).reverted).not.toBeNull();
  });
});
