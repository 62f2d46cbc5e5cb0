import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/use-test-server.ts';
import { longestStall, stallBudgetMs, textStallBudgetMs } from '../helpers/event-loop-stall.ts';
import { agentApi, createDoc, sentRun } from '../helpers/runs.ts';
import { byTag, sentPageRun } from '../helpers/pages.ts';
import { maxPageDepth, maxPageElements } from '../../shared/page/page-limits.ts';
import { maxBatchMarkdownLines } from '../../shared/applier/ops.ts';
import { buildInitialState } from '../../server/docs/create-doc.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { randomId } from '../../shared/model/ids.ts';

/*
 * The attack corpus of LIMIT8–LIMIT11: pages and Markdown whose reading used to cost the server
 * seconds of its event loop (superlinear parsing, sanitizing and serializing, all on the loop).
 * Each attack gets its answer, and the event loop never stalls past the budget while it runs.
 */

const server = useTestServer();

const paragraphs = (count: number) => Array.from({ length: count }, (_, i) => `Paragraph number ${i} of the long document.`).join('\n\n');

async function expectNoStall(attack: () => Promise<void>, budgetMs = stallBudgetMs): Promise<void> {
  const stall = await longestStall(attack);
  expect(stall, `the event loop stalled ${Math.round(stall)} ms`).toBeLessThan(budgetMs);
}

describe('heavy input', () => {
  it('[LIMIT8] [LIMIT9] [LIMIT10] refuses misnested and deep pages before parsing them, and nothing is created', async () => {
    const before = (await server.api('/api/docs')).body.length;
    await expectNoStall(async () => {
      const cases: [string, string][] = [
        ['<a><b>'.repeat(20_000), 'PAGE_TOO_DEEP'],
        ['<a><b>'.repeat(5_000), 'PAGE_TOO_DEEP'],
        ['<div>'.repeat(1_000) + 'x' + '</div>'.repeat(1_000), 'PAGE_TOO_DEEP'],
        ['<div>'.repeat(5_000) + 'x', 'PAGE_TOO_DEEP'],
        ['<p>x</p>'.repeat(maxPageElements + 1), 'PAGE_TOO_LARGE'],
      ];
      for (const [html, code] of cases) {
        const response = await server.api('/api/docs', { method: 'POST', body: { title: 'Attack', kind: 'page', html } });
        expect([response.status, response.body.error?.code]).toEqual([422, code]);
      }
    });
    expect((await server.api('/api/docs')).body.length).toBe(before);
  });

  it('[LIMIT9] keeps a page nested exactly as deep as the limit', async () => {
    const html = '<div>'.repeat(maxPageDepth) + 'deep' + '</div>'.repeat(maxPageDepth);
    const created = await server.api('/api/docs', { method: 'POST', body: { title: 'Deep', kind: 'page', html } });
    expect(created.status).toBe(201);
    expect((await server.api(`/api/docs/${created.body.id}`)).body.elements).toHaveLength(maxPageDepth);
  });

  it('[LIMIT10] creates and reads a wide page off the event loop, for every viewer', async () => {
    const html = Array.from({ length: 5_000 }, (_, i) => `<p>Item ${i}</p>`).join('');
    await expectNoStall(async () => {
      const created = await server.api('/api/docs', { method: 'POST', body: { title: 'Wide', kind: 'page', html } });
      expect(created.status).toBe(201);
      const viewer = server.token('viewer');
      const reads = await Promise.all([1, 2, 3].map(() => server.api(`/api/docs/${created.body.id}`, { token: viewer })));
      for (const read of reads) expect([read.status, read.body.elements.length]).toEqual([200, 5_000]);
    });
  });

  it('[LIMIT8] [LIMIT10] creates and reads a page of the most elements, an agent changes it, and it is previewed and accepted, off the event loop', async () => {
    const html = '<section>' + Array.from({ length: maxPageElements - 1 }, (_, i) => `<p>Paragraph ${i} of a large page.</p>`).join('') + '</section>';
    await expectNoStall(async () => {
      const run = await sentPageRun(server, html, [['p', 'make it a heading']]);
      expect(run.elements).toHaveLength(maxPageElements);
      const agent = agentApi(server, server.token('agent'));
      expect((await agent.claim(run.runId)).status).toBe(200);
      const target = byTag(run.elements, 'p');
      const ops = [{ op: 'replace_element', elementId: target.id, html: '<h2>Now a heading</h2>', expectHash: target.hash, instructionId: run.instructionIds[0] }];
      const applied = await agent.ops(run.runId, 'heading', ops);
      expect([applied.status, applied.body]).toEqual([200, { applied: 1 }]);
      expect((await agent.complete(run.runId)).status).toBe(200);
      const preview = await server.api(`/api/runs/${run.runId}/preview`);
      expect(preview.status).toBe(200);
      expect(preview.body.html).toContain(`<h2 data-tandem-id="${target.id}">Now a heading</h2>`);
      expect((await server.api(`/api/runs/${run.runId}/accept`, { method: 'POST' })).status).toBe(200);
      const read = await server.api(`/api/docs/${run.docId}`);
      expect(read.body.html).toBe(preview.body.html);
      expect(read.body.elements).toHaveLength(maxPageElements);
    });
  });

  it('[LIMIT10] applies page ops of large elements off the event loop', async () => {
    const run = await sentPageRun(server, '<h1>Title</h1><p>Text</p>', [['h1', 'uppercase'], ['p', 'uppercase']]);
    const agent = agentApi(server, server.token('agent'));
    expect((await agent.claim(run.runId)).status).toBe(200);
    const big = (tag: string) => `<${tag}>` + Array.from({ length: 700 }, (_, i) => `<span>w${i}</span>`).join('') + `</${tag}>`;
    await expectNoStall(async () => {
      const ops = (['h1', 'p'] as const).map((tag, index) => {
        const element = byTag(run.elements, tag);
        return { op: 'replace_element', elementId: element.id, html: big(tag), expectHash: element.hash, instructionId: run.instructionIds[index] };
      });
      const applied = await agent.ops(run.runId, 'big', ops);
      expect([applied.status, applied.body]).toEqual([200, { applied: 2 }]);
      const preview = await server.api(`/api/runs/${run.runId}/preview`);
      expect(preview.status).toBe(200);
      expect(preview.body.html.match(/<span/g)).toHaveLength(1_400);
    });
  });

  it('[LIMIT10] imports a 20,000-paragraph document and reads it as blocks and as Markdown off the event loop', async () => {
    await expectNoStall(async () => {
      const created = await server.api('/api/docs', { method: 'POST', body: { title: 'Long', markdown: paragraphs(20_000) } });
      expect(created.status).toBe(201);
      const viewer = server.token('viewer');
      const [doc, markdown] = await Promise.all([
        server.api(`/api/docs/${created.body.id}`, { token: viewer }),
        server.api(`/api/docs/${created.body.id}/markdown`, { token: viewer }),
      ]);
      expect([doc.status, doc.body.blocks.length]).toEqual([200, 20_000]);
      expect(markdown.status).toBe(200);
      expect(markdown.body).toBe(paragraphs(20_000));
    }, textStallBudgetMs);
  });

  it('[LIMIT10] [SHAPE5] reads a 20,000-paragraph document stored before, nothing of it derived yet, off the event loop', async () => {
    // Stored through a handle of its own, as an earlier server left it: the reads find no views
    // kept from the import and read the stored state for shape, merge and write it themselves.
    const id = randomId(10);
    const stored = await server.openStore();
    try {
      const state = buildInitialState({ kind: 'text', title: 'Stored', markdown: paragraphs(20_000) });
      await stored.createDoc({ id, title: 'Stored', kind: 'text', createdAt: Date.now(), updatedAt: Date.now() }, new Map([[docName(id), state]]));
    } finally {
      await stored.close();
    }
    await expectNoStall(async () => {
      const viewer = server.token('viewer');
      const [doc, markdown] = await Promise.all([server.api(`/api/docs/${id}`, { token: viewer }), server.api(`/api/docs/${id}/markdown`, { token: viewer })]);
      expect([doc.status, doc.body.blocks.length, doc.body.blocks[19_999].markdown]).toEqual([200, 20_000, 'Paragraph number 19999 of the long document.']);
      expect([markdown.status, markdown.body]).toEqual([200, paragraphs(20_000)]);
    }, textStallBudgetMs);
  });

  it('[LIMIT10] reads one paragraph of 30,000 links off the event loop', async () => {
    const links = Array.from({ length: 30_000 }, (_, i) => `[l${i}](https://e.co/${i})`).join(' ');
    await expectNoStall(async () => {
      const { id } = await createDoc(server, links);
      const markdown = await server.api(`/api/docs/${id}/markdown`);
      expect(markdown.body).toBe(links);
    }, textStallBudgetMs);
  });

  it('[LIMIT11] refuses a batch that writes more lines of Markdown than the limit, and takes one at the limit', async () => {
    const run = await sentRun(server, 'First\n\nSecond', ['insert "x" after', 'insert "y" after']);
    const agent = agentApi(server, server.token('agent'));
    expect((await agent.claim(run.runId)).status).toBe(200);
    const insert = (lines: number, index: number) => ({
      op: 'insert_after',
      blockId: run.blocks[index].id,
      // Paragraphs, one line each, the lines between them blank.
      markdown: Array.from({ length: lines }, (_, i) => (i % 2 === 0 ? `Paragraph ${i}` : '')).join('\n'),
      instructionId: run.instructionIds[index],
    });
    const half = maxBatchMarkdownLines / 2 + 1;
    await expectNoStall(async () => {
      const over = await agent.ops(run.runId, 'over', [insert(half, 0), insert(half, 1)]);
      expect([over.status, over.body.error.code, over.body.error.index]).toEqual([422, 'INVALID_OP', -1]);
      const at = await agent.ops(run.runId, 'at', [insert(half - 1, 0), insert(half - 1, 1)]);
      expect([at.status, at.body]).toEqual([200, { applied: 2 }]);
    });
  });
});
