import { describe, expect, it } from 'vitest';
import { strFromU8, unzipSync } from 'fflate';
import { agentApi, blocksOf, instruct, markdownOf, replaceOp } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * GFM tables through the API against a real server: a table imported with a new document is one
 * block whose Markdown is the table, exported to Markdown, HTML and Word, searched by its cells'
 * text, and replaced by an agent's op as one block.
 */

const server = useTestServer();

const table = '| Fruit | Qty |\n| :--- | ---: |\n| Fig \\| dried | 2 |\n| *Plum* | 10 |';
const source = `# Pantry\n\n${table}\n\nAfter the table.`;

describe('tables', () => {
  it('[OP13] [CAT5] keeps a GFM table of a new document as one block, and gives it back as Markdown, HTML and Word', async () => {
    const created = await server.api('/api/docs', { method: 'POST', body: { title: 'Pantry', markdown: source } });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('warnings');
    const id = created.body.id as string;
    const blocks = await blocksOf(server, id);
    expect(blocks.map((block) => [block.type, block.parentId])).toEqual([['heading', null], ['table', null], ['paragraph', null]]);
    expect(blocks[1].markdown).toBe(table);
    expect(await markdownOf(server, id)).toBe(source);

    const html = (await server.api(`/api/docs/${id}/html`)).body as string;
    expect(html).toContain('<table>\n<tr><th style="text-align: left">Fruit</th><th style="text-align: right">Qty</th></tr>\n<tr><td style="text-align: left">Fig | dried</td>');
    expect(html).toContain('<td style="text-align: left"><em>Plum</em></td>');

    const docx = await fetch(`${server.url}/api/docs/${id}/docx`, { headers: { authorization: `Bearer ${server.ownerToken}` } });
    const xml = strFromU8(unzipSync(new Uint8Array(await docx.arrayBuffer()))['word/document.xml']);
    expect(xml).toContain('<w:tbl>');
    expect(xml.match(/<w:tr>/g)?.length).toBe(3);
    expect(xml).toContain('Fig | dried');

    const found = await server.api(`/api/docs?q=${encodeURIComponent('dried')}`);
    expect(found.status).toBe(200);
    expect(JSON.stringify(found.body)).toContain(id);
  });

  it('[OP13] [OP3] lets an agent replace the table as one block, with a stable hash', async () => {
    const id = await server.createDoc('Pantry', source);
    const before = await blocksOf(server, id);
    expect((await blocksOf(server, id))[1].hash).toBe(before[1].hash);
    const instructionId = await instruct(server, id, before[1].id, 'add a row');
    const sent = await server.api(`/api/docs/${id}/runs`, { method: 'POST' });
    expect(sent.status).toBe(201);
    const bot = agentApi(server, server.token('agent'));
    await bot.claim(sent.body.runId);
    const next = `${table}\n| Pear | 3 |`;
    const answer = await bot.ops(sent.body.runId, 'k1', [replaceOp(before[1], next, instructionId)]);
    expect(answer).toMatchObject({ status: 200, body: { applied: 1 } });
    const after = await blocksOf(server, id);
    expect(after.map((block) => block.id)).toEqual(before.map((block) => block.id));
    expect(after[1]).toMatchObject({ type: 'table', markdown: next });
    expect(await markdownOf(server, id)).toBe(`# Pantry\n\n${next}\n\nAfter the table.`);
  });

  it('reads a table of 10,000 rows whole: one block, its Markdown given back unchanged', { timeout: 60_000 }, async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => `| ${i} | row ${i} |`).join('\n');
    const big = `| n | text |\n| --- | --- |\n${rows}`;
    const created = await server.api('/api/docs', { method: 'POST', body: { title: 'Big', markdown: big } });
    expect(created.status).toBe(201);
    const blocks = await blocksOf(server, created.body.id);
    expect(blocks).toHaveLength(1);
    expect(blocks[0].type).toBe('table');
    expect(await markdownOf(server, created.body.id)).toBe(big);
  });
});
