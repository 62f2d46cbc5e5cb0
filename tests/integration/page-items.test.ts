import { describe, expect, it } from 'vitest';
import { byTag, landingHtml, pageOf, sentPageRun } from '../helpers/pages.ts';
import { agentApi, getRun } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { waitFor } from '../helpers/peer.ts';
import { docParts } from '../../shared/model/doc-layout.ts';

/*
 * Review change by change on a page (shared/PROTOCOL.md REV12, PAGE8): an item's Accept writes
 * that item's staged changes into the source at once, its Discard drops them from the
 * candidate; the run leaves review once every item is decided, and Revert takes back the
 * accepted items only.
 */

const server = useTestServer({}, 'test');

const longTitle = 'Welcome to the best landing page ever written';

/** A page run in review: item 0 set the h1's text to `Welcome`, item 1 gave the link a title. */
async function reviewedPage() {
  const run = await sentPageRun(server, landingHtml, [['h1', 'shorter'], ['a', 'name the link']]);
  const bot = agentApi(server, server.token('agent'));
  expect((await bot.claim(run.runId)).status).toBe(200);
  const h1 = byTag(run.elements, 'h1');
  const a = byTag(run.elements, 'a');
  const batch = await bot.ops(run.runId, 'k1', [
    { op: 'set_text', elementId: h1.id, text: 'Welcome', expectHash: h1.hash, instructionId: run.instructionIds[0] },
    { op: 'set_attribute', elementId: a.id, name: 'title', value: 'Docs', expectHash: a.hash, instructionId: run.instructionIds[1] },
  ]);
  expect(batch.status).toBe(200);
  expect((await bot.complete(run.runId)).status).toBe(200);
  return run;
}

const decideItem = (runId: string, instructionId: string, decision: 'accept' | 'discard', body?: unknown, token?: string) =>
  server.api(`/api/runs/${runId}/items/${instructionId}/${decision}`, { method: 'POST', body, token });
const preview = async (runId: string): Promise<string> => (await server.api(`/api/runs/${runId}/preview`)).body.html;
const withTitle = (html: string) => html.replace(/(<a [^>]*)>/, '$1 title="Docs">');

describe('deciding one item of a page run', () => {
  it('[REV12] [PAGE8] writes an accepted item into the source at once, keeping a person’s edit, and drops a discarded one', async () => {
    const run = await reviewedPage();
    const accepted = await decideItem(run.runId, run.instructionIds[0], 'accept');
    expect(accepted).toMatchObject({ status: 200, body: { state: 'review', item: { instructionId: run.instructionIds[0], decision: 'accepted' } } });
    const afterAccept = run.html.replace(longTitle, 'Welcome');
    expect((await pageOf(server, run.docId)).html).toBe(afterAccept);
    // The candidate now stages the undecided item only, over the source as it is.
    expect(await preview(run.runId)).toBe(withTitle(afterAccept));

    const editor = server.connect(run.docId);
    await editor.synced;
    const source = docParts(editor.ydoc).html;
    source.insert(source.toString().indexOf(' today.'), ' now');
    await waitFor(async () => (await pageOf(server, run.docId)).html.includes('now today.'));

    const discarded = await decideItem(run.runId, run.instructionIds[1], 'discard');
    expect(discarded).toMatchObject({ status: 200, body: { state: 'accepted', item: { decision: 'discarded' } } });
    const final = afterAccept.replace(' today.', ' now today.');
    expect((await pageOf(server, run.docId)).html).toBe(final);
    expect((await getRun(server, run.runId)).items.map((item) => item.decision)).toEqual(['accepted', 'discarded']);
    const notes = (await server.api(`/api/docs/${run.docId}`)).body.annotations as { state: string }[];
    expect(notes.map((note) => note.state)).toEqual(['answered', 'answered']);

    // Revert takes back the accepted item alone: the discarded title never comes.
    expect(await server.api(`/api/runs/${run.runId}/revert`, { method: 'POST' })).toMatchObject({ status: 200, body: { notReverted: [] } });
    expect((await pageOf(server, run.docId)).html).toBe(run.html.replace(' today.', ' now today.'));
  });

  it('[REV12] [PAGE8] Accept run after a discarded item writes only the items still undecided, also after a restart', async () => {
    const run = await reviewedPage();
    expect((await decideItem(run.runId, run.instructionIds[0], 'discard')).body.state).toBe('review');
    expect((await pageOf(server, run.docId)).html).toBe(run.html);
    expect(await preview(run.runId)).toBe(withTitle(run.html));
    await server.restart();
    expect(await server.api(`/api/runs/${run.runId}/accept`, { method: 'POST' })).toMatchObject({ status: 200, body: { state: 'accepted' } });
    expect((await pageOf(server, run.docId)).html).toBe(withTitle(run.html));
    expect((await getRun(server, run.runId)).items.map((item) => item.decision)).toEqual(['discarded', 'accepted']);
  });

  it('[REV12] [PAGE13] discarding every item discards the run, writing nothing; Undo discard stages both again', async () => {
    const run = await reviewedPage();
    expect((await decideItem(run.runId, run.instructionIds[1], 'discard')).body.state).toBe('review');
    expect((await decideItem(run.runId, run.instructionIds[0], 'discard')).body.state).toBe('discarded');
    expect((await pageOf(server, run.docId)).html).toBe(run.html);
    expect(await server.api(`/api/runs/${run.runId}/undo-discard`, { method: 'POST' })).toMatchObject({ status: 200, body: { state: 'review' } });
    expect(await preview(run.runId)).toBe(withTitle(run.html.replace(longTitle, 'Welcome')));
    expect((await decideItem(run.runId, run.instructionIds[1], 'accept')).status).toBe(200);
    expect((await pageOf(server, run.docId)).html).toBe(withTitle(run.html));
  });

  it('[REV12] lets exactly one of two editors deciding the same page item at once win; the other gets 409 ALREADY_DECIDED', async () => {
    const run = await reviewedPage();
    const [first, second] = await Promise.all([
      decideItem(run.runId, run.instructionIds[0], 'accept', undefined, server.token('editor', { doc: run.docId })),
      decideItem(run.runId, run.instructionIds[0], 'discard', undefined, server.token('editor', { doc: run.docId })),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    expect((first.status === 409 ? first : second).body.error.code).toBe('ALREADY_DECIDED');
    const won = first.status === 200 ? 'accepted' : 'discarded';
    expect((await getRun(server, run.runId)).items[0].decision).toBe(won);
    expect((await pageOf(server, run.docId)).html).toBe(won === 'accepted' ? run.html.replace(longTitle, 'Welcome') : run.html);
    expect(await decideItem(run.runId, run.instructionIds[0], 'accept')).toMatchObject({ status: 409, body: { error: { code: 'ALREADY_DECIDED' } } });
  });

  it('[REV6] [REV12] notes on the change that Accept did not apply it when people removed its element meanwhile', async () => {
    const run = await reviewedPage();
    const editor = server.connect(run.docId);
    await editor.synced;
    const source = docParts(editor.ydoc).html;
    const link = /<a [^>]*>the docs<\/a>/.exec(source.toString())!;
    source.delete(link.index, link[0].length);
    await waitFor(async () => !(await pageOf(server, run.docId)).html.includes('<a '));

    expect((await decideItem(run.runId, run.instructionIds[1], 'accept')).body.state).toBe('review');
    const record = await getRun(server, run.runId);
    expect(record.changes.map((change) => change.note ?? null)).toEqual([null, 'Not applied: the element was removed meanwhile.']);
    expect((await pageOf(server, run.docId)).html).toBe(run.html.replace(link[0], ''));
    // The other item's element is there: its Accept applies it, with no note.
    expect((await decideItem(run.runId, run.instructionIds[0], 'accept')).body.state).toBe('accepted');
    expect((await getRun(server, run.runId)).changes.map((change) => change.note ?? null)).toEqual([null, 'Not applied: the element was removed meanwhile.']);
    expect((await pageOf(server, run.docId)).html).toBe(run.html.replace(link[0], '').replace(longTitle, 'Welcome'));
  });

  it('[REV5] [REV12] gives a discard reason to that page item only, as a draft on its element', async () => {
    const run = await reviewedPage();
    expect((await decideItem(run.runId, run.instructionIds[1], 'discard', { reason: 'no title on links' })).status).toBe(200);
    const { body } = await server.api(`/api/docs/${run.docId}`);
    const drafts = (body.annotations as { state: string; blockId: string; turns: { text: string }[] }[]).filter((note) => note.state === 'draft');
    expect(drafts.map((note) => [note.blockId, note.turns[0]?.text])).toEqual([[byTag(run.elements, 'a').id, 'no title on links']]);
  });
});
