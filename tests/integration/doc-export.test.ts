import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strFromU8, unzipSync } from 'fflate';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { postgresSchemas } from '../helpers/pg-schema.ts';

/*
 * Export and import (shared/PROTOCOL.md CAT5, CAT6) on both backends: a document as HTML and as
 * a Word file, Markdown and HTML imported into one with warnings for what could not be kept,
 * and each route's refusals.
 */

const postgres = postgresSchemas();
const backends = [
  { name: 'SQLite', databaseUrl: async () => undefined },
  { name: 'PostgreSQL', databaseUrl: async () => postgres.fresh() },
];

const source = '# Figs & <dates>\n\nA [safe link](https://example.com/a?b=1&c=2) and **bold** *it* ~~gone~~ `code`.\n\n- one\n- two\n\n1. first\n\n> quoted\n\n```js\nlet x = "<script>";\n```';

describe.each(backends)('export and import ($name)', (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    if (backend.name === 'PostgreSQL') await postgres.setUp();
    server = await startTestServer({ databaseUrl: await backend.databaseUrl() });
  });
  afterAll(async () => {
    await server?.dispose();
    if (backend.name === 'PostgreSQL') await postgres.tearDown();
  });

  const importInto = (id: string, body: unknown, token?: string) => server.api(`/api/docs/${id}/import`, { method: 'POST', body, token });
  const markdown = async (id: string) => (await server.api(`/api/docs/${id}/markdown`)).body as string;
  async function download(path: string, token = server.ownerToken) {
    const response = await fetch(server.url + path, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, type: response.headers.get('content-type'), headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
  }

  it('[CAT5] answers a document as a standalone HTML page, every text escaped, links safe', async () => {
    const id = await server.createDoc('Export <me>', source);
    const response = await server.api(`/api/docs/${id}/html`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = response.body as string;
    expect(html).toContain('<title>Export &lt;me&gt;</title>');
    expect(html).toContain('<h1>Figs &amp; &lt;dates&gt;</h1>');
    expect(html).toContain('<a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer">safe link</a>');
    expect(html).toContain('<strong>bold</strong> <em>it</em> <s>gone</s> <code>code</code>');
    expect(html).toContain('<ul>\n<li><p>one</p></li>');
    expect(html).toContain('<blockquote>\n<p>quoted</p>\n</blockquote>');
    expect(html).toContain('<pre><code class="language-js">let x = "&lt;script&gt;";</code></pre>');
    expect(html).not.toMatch(/<script/i);
  });

  it('[CAT5] answers a document as a Word file holding its text', async () => {
    const id = await server.createDoc('Word', source);
    const file = await download(`/api/docs/${id}/docx`);
    expect(file.status).toBe(200);
    expect(file.type).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${id}.docx"`);
    const entries = unzipSync(file.bytes);
    const body = strFromU8(entries['word/document.xml']);
    for (const words of ['Figs &amp; &lt;dates&gt;', 'safe link', 'bold', 'quoted', 'let x = &quot;&lt;script&gt;&quot;;']) expect(body).toContain(words);
    expect(body).toContain('w:val="Heading1"');
    expect(strFromU8(entries['word/_rels/document.xml.rels'])).toContain('Target="https://example.com/a?b=1&amp;c=2"');
  });

  it('[CAT5] writes every kind of block into a Word file: tables, rules, nested lists, breaks and images by address', async () => {
    const every = `${source}\n\n---\n\n| Fruit | Qty |\n| :-- | --: |\n| Pears | 4 |\n\n- outer\n  - inner\n\nline one  \nline two\n\n![A cat](https://example.com/cat.png)`;
    const id = await server.createDoc('Every block', every);
    const file = await download(`/api/docs/${id}/docx`);
    expect(file.status).toBe(200);
    const body = strFromU8(unzipSync(file.bytes)['word/document.xml']);
    expect(body).toContain('<w:tbl>');
    for (const words of ['Fruit', 'Pears', 'outer', 'inner', 'line one', 'line two', 'A cat']) expect(body, words).toContain(words);
    expect(body).toContain('<w:br/>');
  });

  it('[CAT6] [LIMIT10] reads deeply nested Markdown (quotes 50,000 deep, lists 400 deep) into a document that loads', async () => {
    for (const markdown of ['>'.repeat(50_000) + ' deep', Array.from({ length: 400 }, (_, depth) => `${'  '.repeat(depth)}- level ${depth}`).join('\n'), '*'.repeat(40_000) + 'x' + '*'.repeat(40_000)]) {
      const created = await server.api('/api/docs', { method: 'POST', body: { title: 'Bomb', markdown } });
      // markdown-it stops nesting at its limit: the rest is read as text, and the document is made.
      expect(created.status, markdown.slice(0, 20)).toBe(201);
      const read = await server.api(`/api/docs/${created.body.id}/markdown`);
      expect(read.status).toBe(200);
      expect((await server.api(`/api/docs/${created.body.id}`)).status).toBe(200);
    }
  });

  it('[CAT5] exports a page as HTML and as Word, and refuses what a reader may not read', async () => {
    const created = await server.api('/api/docs', { method: 'POST', body: { title: 'Page', kind: 'page', html: '<h1>Hello page</h1><p onclick="x()">Body <script>alert(1)</script></p>' } });
    const page = created.body.id;
    const html = (await server.api(`/api/docs/${page}/html`)).body as string;
    expect(html).toContain('Hello page');
    expect(html).not.toMatch(/<script|onclick/i);
    expect(strFromU8(unzipSync((await download(`/api/docs/${page}/docx`)).bytes)['word/document.xml'])).toContain('Hello page');
    const other = await server.createDoc('Other', 'x');
    expect((await server.api(`/api/docs/${page}/html`, { token: server.token('viewer', { doc: other }) })).status).toBe(403);
    expect((await download(`/api/docs/${page}/docx`, server.token('viewer', { doc: other }))).status).toBe(403);
    expect((await server.api(`/api/docs/${page}/html`, { token: server.token('viewer') })).status).toBe(200);
    expect((await server.api('/api/docs/nosuchdoc/html')).status).toBe(404);
    await server.api(`/api/docs/${other}`, { method: 'DELETE' });
    expect((await server.api(`/api/docs/${other}/html`)).status).toBe(410);
    expect((await download(`/api/docs/${other}/docx`)).status).toBe(410);
  });

  it('[CAT6] imports Markdown at the end of a document, saying what it could not keep', async () => {
    const id = await server.createDoc('Target', 'already here');
    const answer = await importInto(id, { format: 'markdown', source: '## Added\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![A cat](https://example.com/cat.png) ![A dog](dog.png)' });
    expect(answer.status).toBe(200);
    expect(answer.body.warnings).toEqual(['An image was not kept (“A dog”): an image must come from an https address or be uploaded.']);
    // The GFM table is kept as a table, the https image as an image.
    expect(await markdown(id)).toMatch(/^already here\n\n## Added\n\n\| a \| b \|\n\| --- \| --- \|\n\| 1 \| 2 \|/);
    expect(await markdown(id)).toMatch(/\n\n!\[A cat\]\(https:\/\/example.com\/cat.png\)\n\n!\\\[A dog\\\]\(dog.png\)$/);
  });

  it('[CAT6] imports HTML through a sanitizing parse: no script, no handler, no unsafe link; tables as tables', async () => {
    const id = await server.createDoc('', '');
    const answer = await importInto(id, {
      format: 'html',
      source: '<h2 id="x" style="color:red">Head</h2><p onclick="steal()">Text <a href="javascript:alert(1)">bad</a> <a href="https://ok.example/">good</a></p><script>alert(1)</script><table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table><img src="x.png" alt="Logo"><img src="https://ok.example/i.png" alt="Kept">',
    });
    expect(answer.body).toEqual({
      blocks: 4,
      warnings: ['An image was not kept (“Logo”): an image must come from an https address or be uploaded.'],
    });
    // A blank document is replaced, not added to: the import is its first line (and title, CAT1).
    expect(await markdown(id)).toBe('## Head\n\nText bad [good](https://ok.example/)\n\n| k | v |\n| --- | --- |\n| a | 1 |\n\n![Kept](https://ok.example/i.png)');
    expect((await server.api(`/api/docs/${id}`)).body.title).toBe('Head');
  });

  it('[CAT6] says what a new document\'s Markdown could not keep', async () => {
    const created = await server.api('/api/docs', { method: 'POST', body: { title: 'T', markdown: '| a |\n|---|\n| 1 |\n\n![](p.png) ![Two](q.png)' } });
    expect(created.status).toBe(201);
    expect(created.body.warnings).toEqual(['2 images were not kept (“Two”): an image must come from an https address or be uploaded.']);
    expect((await server.api('/api/docs', { method: 'POST', body: { title: 'T', markdown: 'plain' } })).body).not.toHaveProperty('warnings');
  });

  it('[CAT6] lets only editors import, into a text document, a well-formed body, and changes nothing otherwise', async () => {
    const id = await server.createDoc('Guarded', 'kept');
    const other = await server.createDoc('Other', 'x');
    const body = { format: 'markdown', source: 'more' };
    for (const role of ['viewer', 'commenter', 'agent'] as const) expect((await importInto(id, body, server.token(role))).status, role).toBe(403);
    expect((await importInto(id, body, server.token('editor', { doc: other }))).status).toBe(403);
    expect((await importInto(id, { format: 'docx', source: 'x' })).body.error.code).toBe('INVALID_BODY');
    expect((await importInto(id, { format: 'html' })).status).toBe(422);
    expect((await importInto(id, 'not json')).status).toBe(400);
    const page = (await server.api('/api/docs', { method: 'POST', body: { title: 'P', kind: 'page', html: '<p>p</p>' } })).body.id;
    expect((await importInto(page, body)).body.error.code).toBe('NOT_A_TEXT_DOCUMENT');
    expect((await importInto('nosuchdoc', body)).status).toBe(404);
    expect(await markdown(id)).toBe('kept');
    expect((await importInto(id, body, server.token('editor', { doc: id }))).status).toBe(200);
    expect(await markdown(id)).toBe('kept\n\nmore');
  });
});
