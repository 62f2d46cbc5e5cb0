import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strFromU8, unzipSync } from 'fflate';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { postgresSchemas } from '../helpers/pg-schema.ts';
import { htmlAsPng, svgImage, tinyPng } from '../helpers/images.ts';
import { agentApi, replaceOp, sentRun } from '../helpers/runs.ts';

/*
 * Images uploaded into documents (shared/PROTOCOL.md IMG3, IMG5) on both backends: the upload's
 * answers and refusals, who may read an asset back and with which headers, and assets carried
 * into a duplicate and a Word export.
 */

const postgres = postgresSchemas();
const backends = [
  { name: 'SQLite', databaseUrl: async () => undefined },
  { name: 'PostgreSQL', databaseUrl: async () => postgres.fresh() },
];

describe.each(backends)('assets ($name)', (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    if (backend.name === 'PostgreSQL') await postgres.setUp();
    server = await startTestServer({ databaseUrl: await backend.databaseUrl() });
  });
  afterAll(async () => {
    await server?.dispose();
    if (backend.name === 'PostgreSQL') await postgres.tearDown();
  });

  async function upload(docId: string, body: Uint8Array, options: { token?: string; type?: string } = {}) {
    const response = await fetch(`${server.url}/api/docs/${docId}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.token ?? server.ownerToken}`, 'content-type': options.type ?? 'image/png' },
      body: body as Uint8Array<ArrayBuffer>,
    });
    return { status: response.status, body: await response.json() };
  }
  async function read(path: string, token = server.ownerToken) {
    const response = await fetch(server.url + path, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
  }
  const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

  it('[IMG3] keeps an uploaded PNG under the SHA-256 of its bytes and serves it with its type, nosniff and a year of caching', async () => {
    const id = await server.createDoc('Pictures', 'text');
    const answer = await upload(id, tinyPng);
    expect(answer).toEqual({ status: 201, body: { url: `/api/docs/${id}/assets/${sha256(tinyPng)}` } });
    expect(await upload(id, tinyPng)).toEqual(answer);
    const served = await read(answer.body.url);
    expect(served.status).toBe(200);
    expect(served.bytes).toEqual(tinyPng);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(served.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
  });

  it('[IMG5] refuses with 415 a "PNG" that is HTML and an SVG, and keeps neither', async () => {
    const id = await server.createDoc('Refusals', 'text');
    for (const [bytes, type] of [[htmlAsPng, 'image/png'], [svgImage, 'image/svg+xml'], [new Uint8Array(0), 'image/png']] as const) {
      const answer = await upload(id, bytes, { type });
      expect(answer.status).toBe(415);
      expect(answer.body.error.code).toBe('UNSUPPORTED_IMAGE');
      expect((await read(`/api/docs/${id}/assets/${sha256(bytes)}`)).status).toBe(404);
    }
  });

  it('[IMG5] refuses with 413 an image over 10 MiB and keeps nothing of it', async () => {
    const id = await server.createDoc('Big', 'text');
    const big = new Uint8Array(10 * 1024 * 1024 + 1);
    big.set(tinyPng);
    const answer = await upload(id, big);
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('IMAGE_TOO_LARGE');
    expect((await read(`/api/docs/${id}/assets/${sha256(big)}`)).status).toBe(404);
    const limit = big.subarray(0, 10 * 1024 * 1024);
    expect((await upload(id, limit)).status).toBe(201);
  });

  it('[IMG3] lets only editors of the document upload', async () => {
    const id = await server.createDoc('Guarded', 'text');
    const other = await server.createDoc('Other', 'text');
    for (const role of ['viewer', 'commenter', 'agent'] as const) {
      const answer = await upload(id, tinyPng, { token: server.token(role) });
      expect(answer.status, role).toBe(403);
    }
    expect((await upload(id, tinyPng, { token: server.token('editor', { doc: other }) })).status).toBe(403);
    expect((await upload('nosuchdoc', tinyPng)).status).toBe(404);
    expect((await read(`/api/docs/${id}/assets/${sha256(tinyPng)}`)).status).toBe(404);
  });

  it('[IMG3] serves an asset to every reader of its document and to no one else', async () => {
    const id = await server.createDoc('Shared', 'text');
    const other = await server.createDoc('Other', 'text');
    const { url } = (await upload(id, tinyPng)).body;
    for (const role of ['viewer', 'commenter', 'agent'] as const) expect((await read(url, server.token(role, { doc: id }))).status, role).toBe(200);
    expect((await read(url, server.token('viewer', { doc: other }))).status).toBe(403);
    expect((await read(url, 'not-a-token')).status).toBe(401);
    // The asset belongs to its document: under another document's address it is not there.
    expect((await read(`/api/docs/${other}/assets/${sha256(tinyPng)}`)).status).toBe(404);
    expect((await read(`/api/docs/${id}/assets/not-a-hash`)).status).toBe(404);
  });

  it('[CAT4] gives a duplicate its own copy of the images, at its own addresses', async () => {
    const id = await server.createDoc('Album', 'intro');
    const { url } = (await upload(id, tinyPng)).body;
    await server.api(`/api/docs/${id}/import`, { method: 'POST', body: { format: 'markdown', source: `![A red square](${url})` } });
    const copy = (await server.api(`/api/docs/${id}/duplicate`, { method: 'POST', body: {} })).body.id as string;
    const copied = `/api/docs/${copy}/assets/${sha256(tinyPng)}`;
    expect((await server.api(`/api/docs/${copy}/markdown`)).body).toBe(`intro\n\n![A red square](${copied})`);
    const reader = server.token('viewer', { doc: copy });
    expect((await read(copied, reader)).bytes).toEqual(tinyPng);
  });

  it('[CAT5] embeds a document\'s own images in its Word and HTML exports and names other addresses', async () => {
    const id = await server.createDoc('Word', 'intro');
    const { url } = (await upload(id, tinyPng)).body;
    await server.api(`/api/docs/${id}/import`, {
      method: 'POST',
      body: { format: 'markdown', source: `![Ours](${url})\n\n![Theirs](https://example.com/far.png)` },
    });
    const file = unzipSync((await read(`/api/docs/${id}/docx`)).bytes);
    const media = Object.keys(file).filter((name) => name.startsWith('word/media/'));
    expect(media).toHaveLength(1);
    expect(file[media[0]]).toEqual(tinyPng);
    const body = strFromU8(file['word/document.xml']);
    expect(body).toContain('Theirs');
    expect(body).toContain('https://example.com/far.png');
    const page = strFromU8((await read(`/api/docs/${id}/html`)).bytes);
    expect(page).toContain(`<p><img src="data:image/png;base64,${Buffer.from(tinyPng).toString('base64')}" alt="Ours"></p>`);
    expect(page).toContain('<p><img src="https://example.com/far.png" alt="Theirs"></p>');
  });

  it('[IMG4] refuses an agent\'s op that writes an image of another document\'s asset, and takes one of its own', async () => {
    const elsewhere = await server.createDoc('Elsewhere', 'text');
    const borrowed = (await upload(elsewhere, tinyPng)).body.url as string;
    const { docId, runId, blocks, instructionIds } = await sentRun(server, 'Alpha\n\nBeta', ['Add a picture', 'Add another']);
    const ownUrl = (await upload(docId, tinyPng)).body.url as string;
    const agent = agentApi(server, server.token('agent'));
    expect((await agent.claim(runId)).status).toBe(200);
    const refused = await agent.ops(runId, 'k1', [replaceOp(blocks[0], `Alpha\n\n![Borrowed](${borrowed})`, instructionIds[0])]);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'UNKNOWN_ASSET', index: 0, blockId: blocks[0].id });
    expect((await server.api(`/api/docs/${docId}/markdown`)).body).toBe('Alpha\n\nBeta');
    const applied = await agent.ops(runId, 'k2', [replaceOp(blocks[1], `Beta\n\n![Ours](${ownUrl})`, instructionIds[1])]);
    expect(applied).toMatchObject({ status: 200, body: { applied: 1 } });
    const read = await server.api(`/api/docs/${docId}`, { token: server.token('agent') });
    expect(read.body.blocks.map((block: { type: string; markdown: string }) => [block.type, block.markdown])).toContainEqual(['image', `![Ours](${ownUrl})`]);
  });
});
