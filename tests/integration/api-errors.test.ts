import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let docId: string;

beforeAll(async () => {
  server = await startTestServer();
  docId = (await server.api('/api/docs', { method: 'POST', body: { title: 'Existing' } })).body.id;
});
afterAll(async () => {
  await server.dispose();
});

async function docIds(): Promise<string[]> {
  return (await server.api('/api/docs')).body.map((doc: { id: string }) => doc.id);
}

/** Sends a request that must fail with `status` and `code` and leave the catalogue as it was. */
async function expectRefusal(
  path: string,
  request: { method?: string; body?: unknown; headers?: Record<string, string> },
  status: number,
  code: string,
) {
  const before = await docIds();
  const response = await server.api(path, request);
  expect(response.status).toBe(status);
  expect(response.body).toEqual({ error: { code, message: expect.any(String), ...(status === 405 ? { allow: expect.any(Array) } : {}) } });
  expect(response.body.error.message).not.toMatch(/\n\s+at /);
  expect(await docIds()).toEqual(before);
}

describe('creating a document with a bad body', () => {
  it('answers 400 INVALID_JSON to a body that is not JSON', async () => {
    await expectRefusal('/api/docs', { method: 'POST', body: '{"title": "x",' }, 400, 'INVALID_JSON');
  });

  it('answers 400 INVALID_JSON to an empty body', async () => {
    await expectRefusal('/api/docs', { method: 'POST' }, 400, 'INVALID_JSON');
  });

  it('answers 413 BODY_TOO_LARGE to a body over 1 MiB', async () => {
    const markdown = 'x'.repeat(1024 * 1024);
    await expectRefusal('/api/docs', { method: 'POST', body: { title: 'Big', markdown } }, 413, 'BODY_TOO_LARGE');
  });

  it.each([
    ['an array', []],
    ['a string', 'hello'],
    ['null', null],
    ['no title', { markdown: 'x' }],
    ['a numeric title', { title: 5 }],
    ['a title over 200 characters', { title: 'x'.repeat(201) }],
    ['numeric markdown', { title: 'x', markdown: 5 }],
    ['markdown over 1 MB', { title: 'x', markdown: 'x'.repeat(1_000_001) }],
    ['an unknown kind', { title: 'x', kind: 'video' }],
    ['a page without html', { title: 'x', kind: 'page' }],
    ['a page with numeric html', { title: 'x', kind: 'page', html: 5 }],
    ['a page with markdown', { title: 'x', kind: 'page', html: '<p>', markdown: 'x' }],
    ['html on a text document', { title: 'x', html: '<p>' }],
  ])('answers 422 INVALID_BODY to %s', async (_label, body) => {
    await expectRefusal('/api/docs', { method: 'POST', body: JSON.stringify(body) }, 422, 'INVALID_BODY');
  });

  it('accepts a title of exactly 200 characters', async () => {
    const response = await server.api('/api/docs', { method: 'POST', body: { title: 'x'.repeat(200) } });
    expect(response.status).toBe(201);
  });
});

describe('unknown things', () => {
  it.each(['nosuchdoc', 'has.dot', 'x'.repeat(65), '%E0%A4%A'])('answers 404 NOT_FOUND for the document id %s', async (id) => {
    await expectRefusal(`/api/docs/${id}`, {}, 404, 'NOT_FOUND');
    await expectRefusal(`/api/docs/${id}/markdown`, {}, 404, 'NOT_FOUND');
  });

  it('answers 404 NOT_FOUND for an unknown API route', async () => {
    await expectRefusal('/api/nothing/here', {}, 404, 'NOT_FOUND');
    await expectRefusal(`/api/docs/${docId}/nothing`, {}, 404, 'NOT_FOUND');
  });

  it('answers 405 METHOD_NOT_ALLOWED with an Allow header for a known route and the wrong method', async () => {
    await expectRefusal(`/api/docs/${docId}`, { method: 'PATCH' }, 405, 'METHOD_NOT_ALLOWED');
    const response = await server.api('/api/docs', { method: 'PUT', body: {} });
    expect(response.headers.get('allow')).toBe('POST, GET');
  });
});

describe('creating documents', () => {
  it('makes a text document from Markdown and reads it back as blocks and Markdown', async () => {
    const created = await server.api('/api/docs', {
      method: 'POST',
      body: { title: 'Notes', markdown: '# Head\n\nSome **bold** text.\n\n- a\n- b\n' },
    });
    expect(created).toMatchObject({ status: 201, body: { title: 'Notes', kind: 'text' } });
    const { body } = await server.api(`/api/docs/${created.body.id}`);
    expect(body).toEqual({
      id: created.body.id,
      title: 'Notes',
      kind: 'text',
      blocks: [
        { id: expect.any(String), parentId: null, type: 'heading', markdown: '# Head', hash: expect.stringMatching(/^[0-9a-f]{14}$/) },
        { id: expect.any(String), parentId: null, type: 'paragraph', markdown: 'Some **bold** text.', hash: expect.any(String) },
        { id: expect.any(String), parentId: null, type: 'bullet_list', markdown: '* a\n* b', hash: expect.any(String) },
        // Each list item and the paragraph inside it, with its parent (OP12).
        { id: expect.any(String), parentId: expect.any(String), type: 'list_item', markdown: 'a', hash: expect.any(String) },
        { id: expect.any(String), parentId: expect.any(String), type: 'paragraph', markdown: 'a', hash: expect.any(String) },
        { id: expect.any(String), parentId: expect.any(String), type: 'list_item', markdown: 'b', hash: expect.any(String) },
        { id: expect.any(String), parentId: expect.any(String), type: 'paragraph', markdown: 'b', hash: expect.any(String) },
      ],
      annotations: [],
      runs: [],
      agents: [],
    });
    expect(new Set(body.blocks.map((block: { id: string }) => block.id)).size).toBe(7);
    const markdown = await server.api(`/api/docs/${created.body.id}/markdown`);
    expect(markdown.body).toBe('# Head\n\nSome **bold** text.\n\n* a\n* b');
  });

  it('makes a text document of one empty paragraph when no Markdown is given', async () => {
    const created = await server.api('/api/docs', { method: 'POST', body: { title: 'Blank' } });
    const { body } = await server.api(`/api/docs/${created.body.id}`);
    expect(body.blocks).toEqual([expect.objectContaining({ type: 'paragraph', markdown: '', parentId: null })]);
    expect((await server.api(`/api/docs/${created.body.id}/markdown`)).body).toBe('');
  });

  it('[PAGE1] makes a page from HTML and returns the HTML sanitized, with element ids', async () => {
    const html = '<!doctype html><h1>Hello</h1>';
    const created = await server.api('/api/docs', { method: 'POST', body: { title: 'Site', kind: 'page', html } });
    expect(created).toMatchObject({ status: 201, body: { title: 'Site', kind: 'page' } });
    const { body } = await server.api(`/api/docs/${created.body.id}`);
    const id = body.elements[0]?.id;
    const stored = `<h1 data-tandem-id="${id}">Hello</h1>`;
    expect(body).toEqual({
      id: created.body.id,
      title: 'Site',
      kind: 'page',
      html: stored,
      elements: [{ id, tag: 'h1', text: 'Hello', hash: expect.stringMatching(/^[0-9a-f]{14}$/) }],
      annotations: [],
      runs: [],
      agents: [],
    });
    const markdown = await server.api(`/api/docs/${created.body.id}/markdown`);
    expect(markdown.body).toBe('```html\n' + stored + '\n```\n');
  });
});
