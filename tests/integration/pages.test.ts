import { describe, expect, it } from 'vitest';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import { byTag, createPage, instructElement, landingHtml, pageOf, sentPageRun } from '../helpers/pages.ts';
import { agentApi, getRun, waitForState } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { waitFor } from '../helpers/peer.ts';
import { docParts } from '../../shared/model/doc-layout.ts';

/*
 * Web pages over the real server (shared/PROTOCOL.md PAGE1–PAGE10): a page is created
 * sanitized with element ids, instructions pin to elements, a run stages a candidate that
 * leaves the source untouched until Accept, through the same Send, agent routes and review.
 */

const server = useTestServer({}, 'test');

describe('pages over the API', () => {
  it('[PAGE1] [PAGE3] stores a created page sanitized, lists its kind and shows its elements with hashes', async () => {
    const page = await createPage(server, '<h1 onclick="steal()">Hi<script>steal()</script></h1><a href="javascript:steal()">x</a>');
    expect(page.html).toMatch(/^<h1 data-tandem-id="(e[0-9a-z]+)">Hi<\/h1><a data-tandem-id="e[0-9a-z]+">x<\/a>$/);
    expect(page.elements.map(({ tag, text }) => [tag, text])).toEqual([['h1', 'Hi'], ['a', 'x']]);
    expect(page.elements[0].hash).toMatch(/^[0-9a-f]{14}$/);
    const list = await server.api('/api/docs');
    expect(list.body.find((doc: { id: string }) => doc.id === page.id)).toMatchObject({ kind: 'page' });
  });

  it('[PAGE4] pins an annotation to an element and refuses an unknown element or a blockId', async () => {
    const page = await createPage(server, landingHtml);
    const h1 = byTag(page.elements, 'h1');
    const id = await instructElement(server, page.id, h1.id, 'make this headline shorter');
    const { body } = await server.api(`/api/docs/${page.id}`);
    expect(body.annotations).toEqual([expect.objectContaining({ id, blockId: h1.id, quote: h1.text, kind: 'instruction' })]);
    const unknown = await server.api(`/api/docs/${page.id}/annotations`, { method: 'POST', body: { kind: 'comment', elementId: 'nope', text: 'x' } });
    expect(unknown).toMatchObject({ status: 422, body: { error: { code: 'UNKNOWN_ELEMENT' } } });
    const asBlock = await server.api(`/api/docs/${page.id}/annotations`, { method: 'POST', body: { kind: 'comment', blockId: h1.id, text: 'x' } });
    expect(asBlock).toMatchObject({ status: 422, body: { error: { code: 'INVALID_BODY' } } });
  });

  it('[PAGE5] [PAGE6] refuses a batch whole: a stale hash with elementId, a forbidden attribute with its index', async () => {
    const run = await sentPageRun(server, landingHtml, [['h1', 'shorter'], ['a', 'fix the link']]);
    const bot = agentApi(server, server.token('agent'));
    const claimed = await bot.claim(run.runId);
    expect(claimed.status).toBe(200);
    expect(claimed.body.document.elements).toEqual(run.elements);
    const h1 = byTag(run.elements, 'h1');
    const a = byTag(run.elements, 'a');
    const setTitle = { op: 'set_text', elementId: h1.id, text: 'Welcome', expectHash: h1.hash, instructionId: run.instructionIds[0] };
    const stale = await bot.ops(run.runId, 'k1', [setTitle, { ...setTitle, elementId: a.id, expectHash: 'f00', instructionId: run.instructionIds[1] }]);
    expect(stale).toMatchObject({ status: 409, body: { error: { code: 'STALE_ELEMENT', index: 1, elementId: a.id } } });
    const onclick = { op: 'set_attribute', elementId: a.id, name: 'onclick', value: 'steal()', expectHash: a.hash, instructionId: run.instructionIds[1] };
    expect(await bot.ops(run.runId, 'k2', [setTitle, onclick])).toMatchObject({ status: 422, body: { error: { code: 'INVALID_OP', index: 1 } } });
    const script = { ...onclick, name: 'href', value: 'javascript:steal()' };
    expect(await bot.ops(run.runId, 'k3', [script])).toMatchObject({ status: 422, body: { error: { code: 'INVALID_OP', index: 0 } } });
    const blockOp = { op: 'delete_block', blockId: h1.id, expectHash: h1.hash, instructionId: run.instructionIds[0] };
    expect(await bot.ops(run.runId, 'k4', [blockOp])).toMatchObject({ status: 422, body: { error: { code: 'INVALID_OP', index: 0 } } });
    expect((await getRun(server, run.runId)).changes).toEqual([]);
    expect((await server.api(`/api/runs/${run.runId}/preview`)).body.html).toBe(run.html);
  });

  it('[PAGE7] [PAGE8] stages the candidate: the source stays unchanged through review, the preview shows it, Accept writes it', async () => {
    const run = await sentPageRun(server, landingHtml, [['h1', 'shorter'], ['a', 'fix the link']]);
    const bot = agentApi(server, server.token('agent'));
    await bot.claim(run.runId);
    const h1 = byTag(run.elements, 'h1');
    const a = byTag(run.elements, 'a');
    const batch = await bot.ops(run.runId, 'k1', [
      { op: 'set_text', elementId: h1.id, text: 'Welcome', expectHash: h1.hash, instructionId: run.instructionIds[0] },
      { op: 'set_attribute', elementId: a.id, name: 'href', value: 'https://example.com/docs', expectHash: a.hash, instructionId: run.instructionIds[1] },
    ]);
    expect(batch).toMatchObject({ status: 200, body: { applied: 2 } });
    expect((await bot.complete(run.runId)).status).toBe(200);

    const candidate = run.html.replace('Welcome to the best landing page ever written', 'Welcome').replace('http://old.example/docs', 'https://example.com/docs');
    expect((await pageOf(server, run.docId)).html).toBe(run.html);
    expect((await server.api(`/api/runs/${run.runId}/preview`)).body).toEqual({ html: candidate });
    const record = await getRun(server, run.runId);
    expect(record.changes.map((change) => [change.op, change.blockId])).toEqual([['set_text', h1.id], ['set_attribute', a.id]]);

    expect(await server.api(`/api/runs/${run.runId}/accept`, { method: 'POST' })).toMatchObject({ status: 200, body: { state: 'accepted' } });
    expect((await pageOf(server, run.docId)).html).toBe(candidate);
    const notes = (await server.api(`/api/docs/${run.docId}`)).body.annotations as { state: string }[];
    expect(notes.map((note) => note.state)).toEqual(['answered', 'answered']);
  });

  it('[PAGE13] Revert takes an accepted page run back, leaving an element people rewrote since', async () => {
    const run = await sentPageRun(server, landingHtml, [['h1', 'shorter'], ['a', 'fix the link']]);
    const bot = agentApi(server, server.token('agent'));
    await bot.claim(run.runId);
    const h1 = byTag(run.elements, 'h1');
    const a = byTag(run.elements, 'a');
    await bot.ops(run.runId, 'k1', [
      { op: 'set_text', elementId: h1.id, text: 'Welcome', expectHash: h1.hash, instructionId: run.instructionIds[0] },
      { op: 'set_attribute', elementId: a.id, name: 'title', value: 'Docs', expectHash: a.hash, instructionId: run.instructionIds[1] },
    ]);
    await bot.complete(run.runId);
    await server.api(`/api/runs/${run.runId}/accept`, { method: 'POST' });
    const editor = server.connect(run.docId);
    await editor.synced;
    const source = docParts(editor.ydoc).html;
    const at = source.toString().indexOf('>Welcome<') + 1;
    source.insert(at + 'Welcome'.length, '!');
    await waitFor(async () => (await pageOf(server, run.docId)).html.includes('>Welcome!<'));

    const reverted = await server.api(`/api/runs/${run.runId}/revert`, { method: 'POST' });
    expect(reverted).toMatchObject({
      status: 200,
      body: { state: 'accepted', notReverted: [{ blockId: h1.id, instructionId: run.instructionIds[0], reason: 'rewritten' }] },
    });
    expect((await pageOf(server, run.docId)).html).toBe(run.html.replace('Welcome to the best landing page ever written', 'Welcome!'));
    expect(await server.api(`/api/runs/${run.runId}/revert`, { method: 'POST' })).toMatchObject({ status: 409, body: { error: { code: 'ALREADY_REVERTED' } } });
  });

  it('[PAGE13] Undo discard puts a discarded page run back in review with its candidate, also after a restart', async () => {
    const run = await sentPageRun(server, landingHtml, [['h1', 'shorter']]);
    const bot = agentApi(server, server.token('agent'));
    await bot.claim(run.runId);
    const h1 = byTag(run.elements, 'h1');
    await bot.ops(run.runId, 'k1', [{ op: 'set_text', elementId: h1.id, text: 'Short', expectHash: h1.hash, instructionId: run.instructionIds[0] }]);
    await bot.complete(run.runId);
    await server.api(`/api/runs/${run.runId}/discard`, { method: 'POST' });
    await server.restart();
    expect(await server.api(`/api/runs/${run.runId}/undo-discard`, { method: 'POST' })).toMatchObject({ status: 200, body: { state: 'review' } });
    expect((await pageOf(server, run.docId)).html).toBe(run.html);
    expect((await server.api(`/api/runs/${run.runId}/preview`)).body.html).toContain('>Short</h1>');
    expect((await server.api(`/api/runs/${run.runId}/accept`, { method: 'POST' })).status).toBe(200);
    expect((await pageOf(server, run.docId)).html).toContain('>Short</h1>');
  });

  it('[PAGE8] Discard drops the candidate and leaves the source as it was', async () => {
    const run = await sentPageRun(server, landingHtml, [['h1', 'shorter']]);
    const bot = agentApi(server, server.token('agent'));
    await bot.claim(run.runId);
    const h1 = byTag(run.elements, 'h1');
    await bot.ops(run.runId, 'k1', [{ op: 'replace_element', elementId: h1.id, html: '<h2>Short</h2>', expectHash: h1.hash, instructionId: run.instructionIds[0] }]);
    await bot.complete(run.runId);
    expect((await server.api(`/api/runs/${run.runId}/preview`)).body.html).toContain(`<h2 data-tandem-id="${h1.id}">Short</h2>`);
    expect(await server.api(`/api/runs/${run.runId}/discard`, { method: 'POST' })).toMatchObject({ status: 200, body: { state: 'discarded' } });
    expect((await pageOf(server, run.docId)).html).toBe(run.html);
  });

  it('[PAGE8] Accept and Discard work after a restart of the server between the agent and the review', async () => {
    const accepted = await sentPageRun(server, landingHtml, [['h1', 'shorter']]);
    const discarded = await sentPageRun(server, landingHtml, [['h1', 'shorter']]);
    const bot = agentApi(server, server.token('agent'));
    for (const run of [accepted, discarded]) {
      await bot.claim(run.runId);
      const h1 = byTag(run.elements, 'h1');
      await bot.ops(run.runId, 'k1', [{ op: 'set_text', elementId: h1.id, text: 'Short', expectHash: h1.hash, instructionId: run.instructionIds[0] }]);
      await bot.complete(run.runId);
    }
    await server.restart();
    expect((await pageOf(server, accepted.docId)).html).toBe(accepted.html);
    expect((await server.api(`/api/runs/${accepted.runId}/accept`, { method: 'POST' })).status).toBe(200);
    expect((await pageOf(server, accepted.docId)).html).toBe(accepted.html.replace('Welcome to the best landing page ever written', 'Short'));
    expect((await server.api(`/api/runs/${discarded.runId}/discard`, { method: 'POST' })).status).toBe(200);
    expect((await pageOf(server, discarded.docId)).html).toBe(discarded.html);
  });

  it('[PAGE8] Accept keeps an edit people made elsewhere in the source during review', async () => {
    const run = await sentPageRun(server, landingHtml, [['h1', 'shorter']]);
    const bot = agentApi(server, server.token('agent'));
    await bot.claim(run.runId);
    const h1 = byTag(run.elements, 'h1');
    await bot.ops(run.runId, 'k1', [{ op: 'set_text', elementId: h1.id, text: 'Short', expectHash: h1.hash, instructionId: run.instructionIds[0] }]);
    await bot.complete(run.runId);
    const editor = server.connect(run.docId);
    await editor.synced;
    const source = docParts(editor.ydoc).html;
    source.insert(source.length, '<footer data-tandem-id="late">Late</footer>');
    await waitFor(async () => (await pageOf(server, run.docId)).html.endsWith('Late</footer>'));
    expect((await server.api(`/api/runs/${run.runId}/preview`)).body.html).toContain('>Short</h1>');

    expect((await server.api(`/api/runs/${run.runId}/accept`, { method: 'POST' })).status).toBe(200);
    const after = (await pageOf(server, run.docId)).html;
    expect(after).toBe(run.html.replace('Welcome to the best landing page ever written', 'Short') + '<footer data-tandem-id="late">Late</footer>');
    await waitFor(() => source.toString() === after);
  });

  it('[PAGE8] a failed page run forgets its changes and leaves the source as it was', async () => {
    const run = await sentPageRun(server, landingHtml, [['h1', 'shorter']]);
    const bot = agentApi(server, server.token('agent'));
    await bot.claim(run.runId);
    const h1 = byTag(run.elements, 'h1');
    await bot.ops(run.runId, 'k1', [{ op: 'set_text', elementId: h1.id, text: 'Short', expectHash: h1.hash, instructionId: run.instructionIds[0] }]);
    expect((await getRun(server, run.runId)).changes).toHaveLength(1);
    expect((await bot.fail(run.runId, 'gave up')).status).toBe(200);
    expect(await getRun(server, run.runId)).toMatchObject({ state: 'failed', changes: [] });
    expect((await pageOf(server, run.docId)).html).toBe(run.html);
    expect((await server.api(`/api/runs/${run.runId}/preview`)).body.html).toBe(run.html);
  });

  it('[PAGE7] answers NOT_A_PAGE for the preview of a text run', async () => {
    const docId = await server.createDoc('Text', 'alpha');
    const { body } = await server.api(`/api/docs/${docId}`);
    await server.api(`/api/docs/${docId}/annotations`, { method: 'POST', body: { kind: 'instruction', blockId: body.blocks[0].id, text: 'uppercase' } });
    const sent = await server.api(`/api/docs/${docId}/runs`, { method: 'POST' });
    expect(await server.api(`/api/runs/${sent.body.runId}/preview`)).toMatchObject({ status: 422, body: { error: { code: 'NOT_A_PAGE' } } });
  });

  it('[PAGE10] the reference agent answers page instructions with set_text and refuses what it does not understand', async () => {
    const agent = startTestReferenceAgent(server);
    try {
      const run = await sentPageRun(server, '<h1>Hello world</h1><p>small print</p><h2>Sub</h2><h3>Odd</h3>', [
        ['h1', 'replace "world" with "team"'],
        ['p', 'uppercase'],
        ['h2', 'set text "New sub"'],
        ['h3', 'delete'],
      ]);
      const record = await waitForState(server, run.runId, 'review', 10_000);
      expect(record.items.map((item) => item.outcome)).toEqual(['changed', 'changed', 'changed', 'refused']);
      expect((await pageOf(server, run.docId)).html).toBe(run.html);
      const preview = (await server.api(`/api/runs/${run.runId}/preview`)).body.html as string;
      expect(preview.replace(/ data-tandem-id="[^"]+"/g, '')).toBe('<h1>Hello team</h1><p>SMALL PRINT</p><h2>New sub</h2><h3>Odd</h3>');
    } finally {
      await agent.stop();
    }
  });
});
