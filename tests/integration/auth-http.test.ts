import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../../server/auth/tokens.ts';
import { fixedKeyRing } from '../../server/auth/keys.ts';
import type { Role } from '../../shared/protocol/claims.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let docId: string;
let otherId: string;

beforeAll(async () => {
  server = await startTestServer();
  docId = (await server.api('/api/docs', { method: 'POST', body: { title: 'One', markdown: 'one' } })).body.id;
  otherId = (await server.api('/api/docs', { method: 'POST', body: { title: 'Two', markdown: 'two' } })).body.id;
});
afterAll(async () => {
  await server.dispose();
});

const docCount = async () => (await server.api('/api/docs')).body.length;

describe('HTTP access by role', () => {
  it.each<[Role, number]>([
    ['editor', 201],
    ['commenter', 403],
    ['viewer', 403],
    ['agent', 403],
  ])('answers a %s creating a document with %i', async (role, status) => {
    const before = await docCount();
    const response = await server.api('/api/docs', { method: 'POST', token: server.token(role), body: { title: 'New' } });
    expect(response.status).toBe(status);
    if (status === 201) expect(response.body).toEqual({ id: expect.any(String), title: 'New', kind: 'text' });
    else expect(response.body.error.code).toBe('FORBIDDEN');
    expect(await docCount()).toBe(before + (status === 201 ? 1 : 0));
  });

  it.each<Role>(['editor', 'commenter', 'viewer', 'agent'])('lets a %s list, read and export documents', async (role) => {
    const token = server.token(role);
    const list = await server.api('/api/docs', { token });
    expect(list.status).toBe(200);
    expect(list.body.map((doc: { id: string }) => doc.id)).toContain(docId);
    const doc = await server.api(`/api/docs/${docId}`, { token });
    expect(doc.status).toBe(200);
    expect(doc.body.blocks.map((block: { markdown: string }) => block.markdown)).toEqual(['one']);
    const markdown = await server.api(`/api/docs/${docId}/markdown`, { token });
    expect(markdown.status).toBe(200);
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(markdown.body).toBe('one');
  });

  it.each([
    ['no token', null],
    ['a malformed token', 'not-a-token'],
    ['a token signed by another server', signToken(fixedKeyRing([{ kid: 'other', secret: randomBytes(32) }]), { sub: 'x', name: 'X', role: 'editor' })],
  ])('answers 401 to a request with %s', async (_label, given) => {
    const token = await given;
    for (const [method, path] of [
      ['GET', '/api/docs'],
      ['POST', '/api/docs'],
      ['GET', `/api/docs/${docId}`],
      ['GET', `/api/docs/${docId}/markdown`],
      ['GET', '/api/no-such-route'],
    ]) {
      const response = await server.api(path, { method, token, body: method === 'POST' ? { title: 'x' } : undefined });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    }
  });

  it('answers 401 to a token sent without the Bearer scheme', async () => {
    const response = await server.api('/api/docs', { token: null, headers: { authorization: server.ownerToken } });
    expect(response.status).toBe(401);
  });

  it('[TOKEN6] says whom a token signs in at GET /api/session, and refuses a bad one there as everywhere', async () => {
    const token = server.token('commenter', { name: 'Cleo', sub: 'cleo', doc: docId });
    expect(await server.api('/api/session', { token })).toMatchObject({ status: 200, body: { id: 'cleo', name: 'Cleo', role: 'commenter', doc: docId } });
    expect((await server.api('/api/session', { token: server.token('viewer', { name: 'Vic', sub: 'vic' }) })).body).toEqual({ id: 'vic', name: 'Vic', role: 'viewer', doc: null });
    const forged = token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect(await server.api('/api/session', { token: forged })).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHORIZED' } } });
  });

  it('needs no token for /healthz', async () => {
    const response = await server.api('/healthz', { token: null });
    expect(response).toMatchObject({ status: 200, body: { ok: true } });
  });
});

describe('a token limited to one document', () => {
  it('reads that document and lists only it', async () => {
    const token = server.token('viewer', { doc: docId });
    expect((await server.api(`/api/docs/${docId}`, { token })).status).toBe(200);
    expect((await server.api(`/api/docs/${docId}/markdown`, { token })).status).toBe(200);
    const list = await server.api('/api/docs', { token });
    expect(list.body.map((doc: { id: string }) => doc.id)).toEqual([docId]);
  });

  it('gets 403 for any other document, existing or not', async () => {
    const token = server.token('editor', { doc: docId });
    for (const path of [`/api/docs/${otherId}`, `/api/docs/${otherId}/markdown`, '/api/docs/nosuchdoc']) {
      const response = await server.api(path, { token });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('FORBIDDEN');
    }
  });

  it('may not create documents, even with the editor role', async () => {
    const before = await docCount();
    const token = server.token('editor', { doc: docId });
    const response = await server.api('/api/docs', { method: 'POST', token, body: { title: 'x' } });
    expect(response.status).toBe(403);
    expect(await docCount()).toBe(before);
  });
});
