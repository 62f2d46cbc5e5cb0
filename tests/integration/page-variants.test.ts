import { describe, expect, it } from 'vitest';
import { byTag, createPage, landingHtml, pageOf } from '../helpers/pages.ts';
import { agentApi, getRun } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * Variants on a page (shared/PROTOCOL.md VAR1–VAR3 with PAGE7, PAGE8): a `propose_variants`
 * names an element and holds 2–4 candidates of HTML, each checked as a `replace_element`; the
 * run stages the first, choose stages another (the page itself is written only on Accept).
 */

const server = useTestServer({}, 'test');

const candidates = ['<h1>Hello there</h1>', '<h1 class="big">Welcome, <em>reader</em></h1>', '<h1>Good to see you</h1>'];

async function proposedOnPage() {
  const page = await createPage(server, landingHtml);
  const h1 = byTag(page.elements, 'h1');
  const made = await server.api(`/api/docs/${page.id}/annotations`, { method: 'POST', body: { kind: 'instruction', elementId: h1.id, text: 'a warmer title', variants: 3 } });
  expect(made.status).toBe(201);
  const sent = await server.api(`/api/docs/${page.id}/runs`, { method: 'POST' });
  expect(sent.body.items[0].variantsWanted).toBe(3);
  const bot = agentApi(server, server.token('agent'));
  expect((await bot.claim(sent.body.runId)).status).toBe(200);
  const op = { op: 'propose_variants', elementId: h1.id, expectHash: h1.hash, instructionId: made.body.id as string, candidates };
  return { docId: page.id, runId: sent.body.runId as string, instructionId: made.body.id as string, bot, op, h1 };
}

const preview = async (runId: string): Promise<string> => (await server.api(`/api/runs/${runId}/preview`)).body.html;
const choose = (runId: string, instructionId: string, variant: number) =>
  server.api(`/api/runs/${runId}/items/${instructionId}/choose`, { method: 'POST', body: { variant } });

describe('variants on a page', () => {
  it('[VAR1] stages the first candidate, lists them all, and stages another on choose; Accept writes the one shown', async () => {
    const { docId, runId, instructionId, bot, op } = await proposedOnPage();
    const applied = await bot.ops(runId, 'k1', [op]);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect((await bot.complete(runId)).status).toBe(200);
    const run = await getRun(server, runId);
    expect(run.items[0].chosen).toBe(0);
    expect(run.items[0].variants.map((variant) => variant.markdown.replace(/ data-tandem-id="[^"]*"/g, ''))).toEqual(candidates);
    expect(await preview(runId)).toContain('Hello there</h1>');
    // The page itself is untouched while the run stages its candidate.
    expect((await pageOf(server, docId)).html).toContain('Welcome to the best landing page ever written');

    expect((await choose(runId, instructionId, 1)).status).toBe(200);
    expect(await preview(runId)).toMatch(/<h1 class="big"[^>]*>Welcome, <em[^>]*>reader<\/em><\/h1>/);
    expect((await choose(runId, instructionId, 4)).body.error.code).toBe('NO_SUCH_VARIANT');
    expect((await choose(runId, instructionId, 2)).status).toBe(200);
    expect((await server.api(`/api/runs/${runId}/accept`, { method: 'POST' })).status).toBe(200);
    const written = (await pageOf(server, docId)).html;
    expect(written).toContain('Good to see you</h1>');
    expect(written).not.toContain('Welcome to the best');
  });

  it('[VAR1] refuses the whole batch for a candidate that is not one element, or a second answer to the instruction', async () => {
    const { runId, bot, op, h1 } = await proposedOnPage();
    const bad = await bot.ops(runId, 'k1', [{ ...op, candidates: ['<h1>Fine</h1>', '<p>one</p><p>two</p>'] }]);
    expect([bad.status, bad.body.error.code]).toEqual([422, 'INVALID_OP']);
    expect(bad.body.error.message).toMatch(/candidate 1/);
    const twice = await bot.ops(runId, 'k2', [op, { op: 'set_text', elementId: h1.id, text: 'x', expectHash: h1.hash, instructionId: op.instructionId }]);
    expect([twice.status, twice.body.error.code]).toEqual([422, 'INVALID_OP']);
    expect((await getRun(server, runId)).changes).toEqual([]);
  });
});
