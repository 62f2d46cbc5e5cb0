import { describe, expect, it } from 'vitest';
import type { Role } from '../../shared/protocol/claims.ts';
import { readAnnotation } from '../../shared/notes/annotations.ts';
import { docName, docParts } from '../../shared/model/doc-layout.ts';
import { waitFor } from '../helpers/peer.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { pinAnnotation } from '../helpers/notes.ts';
import { textAndNotesPeers } from '../helpers/notes-peers.ts';

const server = useTestServer();

const connect = server.connect;

/** A new document of two paragraphs; its id and its block ids. */
async function createDoc(): Promise<{ id: string; blocks: string[] }> {
  const id = (await server.api('/api/docs', { method: 'POST', body: { title: 'Notes', markdown: 'first words\n\nsecond words' } })).body.id;
  const doc = await server.api(`/api/docs/${id}`);
  return { id, blocks: doc.body.blocks.map((block: { id: string }) => block.id) };
}

async function annotationsOf(id: string): Promise<any[]> {
  return (await server.api(`/api/docs/${id}`)).body.annotations;
}

function annotate(id: string, body: unknown, token: string = server.ownerToken) {
  return server.api(`/api/docs/${id}/annotations`, { method: 'POST', body, token });
}

describe('POST /api/docs/:id/annotations', () => {
  it('pins a comment to a whole block in the principal’s name and lists it as attached', async () => {
    const doc = await createDoc();
    const token = server.token('editor', { sub: 'ada', name: 'Ada' });
    const response = await annotate(doc.id, { kind: 'comment', blockId: doc.blocks[1], text: 'Why second?' }, token);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ id: expect.stringMatching(/^[a-z0-9]{10}$/) });
    const [listed, ...rest] = await annotationsOf(doc.id);
    expect(rest).toEqual([]);
    expect(listed).toMatchObject({
      id: response.body.id,
      kind: 'comment',
      blockId: doc.blocks[1],
      quote: 'second words',
      author: { id: 'ada', name: 'Ada' },
      resolved: false,
      turns: [{ author: { id: 'ada', name: 'Ada' }, text: 'Why second?' }],
      status: 'attached',
    });
  });

  it('creates an instruction queued for the next run', async () => {
    const doc = await createDoc();
    const response = await annotate(doc.id, { kind: 'instruction', blockId: doc.blocks[0], text: 'uppercase' });
    expect(response.status).toBe(201);
    expect(await annotationsOf(doc.id)).toMatchObject([
      { id: response.body.id, kind: 'instruction', state: 'queued', runId: null, fromCommentId: null, quote: 'first words' },
    ]);
  });

  it('shows a connected peer the new annotation at once', async () => {
    const doc = await createDoc();
    const peer = connect(docName(doc.id, 'notes'), server.token('viewer'));
    await peer.synced;
    const { body } = await annotate(doc.id, { kind: 'comment', blockId: doc.blocks[0], text: 'Seen?' });
    await waitFor(() => readAnnotation(peer.ydoc, body.id).ok);
  });

  it.each<[Role, 'comment' | 'instruction', number]>([
    ['editor', 'comment', 201],
    ['editor', 'instruction', 201],
    ['commenter', 'comment', 201],
    ['commenter', 'instruction', 403],
    ['viewer', 'comment', 403],
    ['viewer', 'instruction', 403],
    ['agent', 'comment', 403],
    ['agent', 'instruction', 403],
  ])('answers a %s creating a %s with %i', async (role, kind, status) => {
    const doc = await createDoc();
    const response = await annotate(doc.id, { kind, blockId: doc.blocks[0], text: 'note' }, server.token(role));
    expect(response.status).toBe(status);
    if (status === 403) expect(response.body.error.code).toBe('FORBIDDEN');
    expect(await annotationsOf(doc.id)).toHaveLength(status === 201 ? 1 : 0);
  });

  it.each([
    ['an unknown kind', { kind: 'question', text: 'note' }, 422, 'INVALID_BODY'],
    ['no kind', { text: 'note' }, 422, 'INVALID_BODY'],
    ['a block id that is not a string', { kind: 'comment', blockId: 7, text: 'note' }, 422, 'INVALID_BODY'],
    ['an unknown block', { kind: 'comment', blockId: 'nosuchblock', text: 'note' }, 422, 'UNKNOWN_BLOCK'],
    ['a block id no block could have', { kind: 'comment', blockId: '../x', text: 'note' }, 422, 'UNKNOWN_BLOCK'],
    ['empty text', { kind: 'comment', text: '' }, 422, 'INVALID_TEXT'],
    ['blank text', { kind: 'comment', text: '  \n ' }, 422, 'INVALID_TEXT'],
    ['text over 10,000 characters', { kind: 'comment', text: 'x'.repeat(10_001) }, 422, 'INVALID_TEXT'],
    ['text that is not a string', { kind: 'instruction', text: ['uppercase'] }, 422, 'INVALID_TEXT'],
    ['a body that is not an object', ['comment'], 422, 'INVALID_BODY'],
    ['a body that is not JSON', '{"kind": "comment",', 400, 'INVALID_JSON'],
  ])('refuses %s with %i %s and stores nothing', async (_label, body, status, code) => {
    const doc = await createDoc();
    const withBlock = typeof body === 'object' && !Array.isArray(body) && !('blockId' in body) ? { ...body, blockId: doc.blocks[0] } : body;
    const response = await annotate(doc.id, withBlock);
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ error: { code, message: expect.any(String) } });
    expect(await annotationsOf(doc.id)).toEqual([]);
  });

  it('accepts text of exactly 10,000 characters', async () => {
    const doc = await createDoc();
    expect((await annotate(doc.id, { kind: 'comment', blockId: doc.blocks[0], text: 'x'.repeat(10_000) })).status).toBe(201);
  });

  it('answers 404 for an unknown document and 403 for a token limited to another one', async () => {
    const doc = await createDoc();
    const other = await createDoc();
    expect((await annotate('nosuchdoc', { kind: 'comment', blockId: doc.blocks[0], text: 'x' })).status).toBe(404);
    const limited = server.token('editor', { doc: other.id });
    expect((await annotate(doc.id, { kind: 'comment', blockId: doc.blocks[0], text: 'x' }, limited)).status).toBe(403);
    expect(await annotationsOf(doc.id)).toEqual([]);
  });

  it('lists an annotation whose block was deleted as orphaned, with its quote', async () => {
    const doc = await createDoc();
    const { body } = await annotate(doc.id, { kind: 'comment', blockId: doc.blocks[1], text: 'Keep this?' });
    const text = connect(doc.id, server.ownerToken);
    await text.synced;
    text.ydoc.transact(() => docParts(text.ydoc).content.delete(1, 1));
    await waitFor(async () => (await server.api(`/api/docs/${doc.id}`)).body.blocks.length === 1);
    expect(await annotationsOf(doc.id)).toMatchObject([{ id: body.id, quote: 'second words', status: 'orphaned' }]);
  });
});

describe('POST /api/annotations/:id/escalate', () => {
  it('makes a new queued instruction from a comment and leaves the comment as it was', async () => {
    const doc = await createDoc();
    const { body: comment } = await annotate(doc.id, { kind: 'comment', blockId: doc.blocks[0], text: 'uppercase' }, server.token('commenter'));
    const before = await annotationsOf(doc.id);
    const response = await server.api(`/api/annotations/${comment.id}/escalate`, {
      method: 'POST',
      token: server.token('editor', { sub: 'eve', name: 'Eve' }),
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ id: expect.any(String) });
    const after = await annotationsOf(doc.id);
    expect(after.find((note) => note.id === comment.id)).toEqual(before[0]);
    expect(after.find((note) => note.id === response.body.id)).toMatchObject({
      kind: 'instruction',
      state: 'queued',
      fromCommentId: comment.id,
      blockId: doc.blocks[0],
      quote: 'first words',
      anchor: before[0].anchor,
      author: { id: 'eve', name: 'Eve' },
      turns: [{ text: 'uppercase', author: { id: 'eve', name: 'Eve' } }],
    });
  });

  it('refuses to escalate an instruction with 422 NOT_A_COMMENT', async () => {
    const doc = await createDoc();
    const { body } = await annotate(doc.id, { kind: 'instruction', blockId: doc.blocks[0], text: 'delete' });
    const response = await server.api(`/api/annotations/${body.id}/escalate`, { method: 'POST' });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('NOT_A_COMMENT');
    expect(await annotationsOf(doc.id)).toHaveLength(1);
  });

  it('answers 404 for an unknown annotation', async () => {
    for (const id of ['nosuchnote', 'not%20an%20id']) {
      const response = await server.api(`/api/annotations/${id}/escalate`, { method: 'POST' });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
  });

  it.each<Role>(['commenter', 'viewer', 'agent'])('refuses a %s with 403', async (role) => {
    const doc = await createDoc();
    const { body } = await annotate(doc.id, { kind: 'comment', blockId: doc.blocks[0], text: 'uppercase' });
    const response = await server.api(`/api/annotations/${body.id}/escalate`, { method: 'POST', token: server.token(role) });
    expect(response.status).toBe(403);
    expect(await annotationsOf(doc.id)).toHaveLength(1);
  });

  it('refuses an editor whose token is limited to another document', async () => {
    const doc = await createDoc();
    const other = await createDoc();
    const { body } = await annotate(doc.id, { kind: 'comment', blockId: doc.blocks[0], text: 'uppercase' });
    const token = server.token('editor', { doc: other.id });
    expect((await server.api(`/api/annotations/${body.id}/escalate`, { method: 'POST', token })).status).toBe(403);
  });

  it('escalates a comment a peer created over Yjs a moment ago', async () => {
    const doc = await createDoc();
    const author = { id: 'cora', name: 'Cora' };
    const { text, notes } = await textAndNotesPeers(server, doc.id, 'commenter', author);
    const commentId = pinAnnotation(notes.ydoc, text.ydoc, doc.blocks[1], author, { text: 'lowercase' });
    await waitFor(async () => (await annotationsOf(doc.id)).length === 1);
    const response = await server.api(`/api/annotations/${commentId}/escalate`, { method: 'POST' });
    expect(response.status).toBe(201);
    await waitFor(() => readAnnotation(notes.ydoc, response.body.id).ok);
    expect(await annotationsOf(doc.id)).toMatchObject([
      { id: commentId, kind: 'comment', quote: 'second words', status: 'attached' },
      { id: response.body.id, kind: 'instruction', fromCommentId: commentId, quote: 'second words' },
    ]);
  });

  it('finds annotations again after a restart', async () => {
    const doc = await createDoc();
    const { body } = await annotate(doc.id, { kind: 'comment', blockId: doc.blocks[0], text: 'uppercase' });
    await server.restart();
    expect((await server.api(`/api/annotations/${body.id}/escalate`, { method: 'POST' })).status).toBe(201);
  });
});
