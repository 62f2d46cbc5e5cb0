import { afterEach, describe, expect, it } from 'vitest';
import { readBlocks } from '../../shared/model/doc-content.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { readAnnotation } from '../../shared/notes/annotations.ts';
import { addAnnotation } from '../helpers/notes.ts';
import { connectPeer, roundTrip, waitFor, type Peer } from '../helpers/peer.ts';
import { recordIncoming } from '../helpers/frames.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { appendParagraph } from '../helpers/doc-builder.ts';

let server: TestServer;
const peers: Peer[] = [];

afterEach(async () => {
  for (const peer of peers.splice(0)) peer.destroy();
  await server?.dispose();
});

const author = { id: 'persisting-editor', name: 'Persisting editor' };

function peer(name: string): Peer {
  const connected = connectPeer({ wsUrl: server.wsUrl, name, token: server.token('editor', { sub: author.id, name: author.name }) });
  peers.push(connected);
  return connected;
}

async function createDoc(body: Record<string, unknown>): Promise<string> {
  const created = await server.api('/api/docs', { method: 'POST', body });
  expect(created.status).toBe(201);
  return created.body.id;
}

const markdownOf = (blocks: { markdown: string }[]) => blocks.map((block) => block.markdown);

describe('persistence', () => {
  it('keeps a created document across a restart before anyone connects', async () => {
    server = await startTestServer();
    const id = await createDoc({ title: 'Kept', markdown: '# Kept\n\nbody' });
    const page = await createDoc({ title: 'Page', kind: 'page', html: '<h1>Hi</h1>' });
    await server.restart();

    const list = await server.api('/api/docs');
    expect(list.body.map((doc: { id: string }) => doc.id).sort()).toEqual([id, page].sort());
    const doc = await server.api(`/api/docs/${id}`);
    expect(doc.body).toMatchObject({ id, title: 'Kept', kind: 'text' });
    expect(markdownOf(doc.body.blocks)).toEqual(['# Kept', 'body']);
    expect((await server.api(`/api/docs/${page}`)).body).toMatchObject({ kind: 'page', html: expect.stringMatching(/^<h1 data-tandem-id="[^"]+">Hi<\/h1>$/) });
  });

  it('[DUR3] sends a document loaded from the store to its first peer once, in the sync reply', async () => {
    server = await startTestServer();
    const paragraphs = Array.from({ length: 300 }, (_, i) => `Paragraph ${i} of a document large enough to tell apart from small messages.`);
    const id = await createDoc({ title: 'Loaded once', markdown: paragraphs.join('\n\n') });
    await server.restart();

    const reader = peer(id);
    const frames = recordIncoming(reader);
    await reader.synced;
    // A second exchange: whatever the server had queued for the first peer has been sent by now.
    await roundTrip(reader);
    expect(docParts(reader.ydoc).content.length).toBe(300);
    const whole = frames.filter((frame) => frame.byteLength > 20_000);
    expect(whole).toHaveLength(1);
  });

  it('keeps an edit across a restart once its last peer has left', async () => {
    server = await startTestServer();
    const id = await createDoc({ title: 'Edited', markdown: 'first' });
    const writer = peer(id);
    await writer.synced;
    appendParagraph(writer.ydoc, 'second');
    await waitFor(async () => (await server.api(`/api/docs/${id}`)).body.blocks.length === 2);
    writer.destroy();

    await server.restart();

    const reader = peer(id);
    await reader.synced;
    expect(markdownOf(readBlocks(reader.ydoc))).toEqual(['first', 'second']);
    expect(markdownOf((await server.api(`/api/docs/${id}`)).body.blocks)).toEqual(['first', 'second']);
  });

  it('stores open documents when it closes while peers are still connected', async () => {
    server = await startTestServer();
    const id = await createDoc({ title: 'Open', markdown: 'first' });
    const writer = peer(id);
    const notes = peer(`${id}/notes`);
    await Promise.all([writer.synced, notes.synced]);
    appendParagraph(writer.ydoc, 'typed just before the stop');
    addAnnotation(notes.ydoc, author, { id: 'c1', text: 'hello' });
    await waitFor(async () => (await server.api(`/api/docs/${id}`)).body.blocks.length === 2);

    await server.stop();
    writer.destroy();
    notes.destroy();
    await server.restart();

    const reader = peer(id);
    const notesReader = peer(`${id}/notes`);
    await Promise.all([reader.synced, notesReader.synced]);
    expect(markdownOf(readBlocks(reader.ydoc))).toEqual(['first', 'typed just before the stop']);
    const stored = readAnnotation(notesReader.ydoc, 'c1');
    expect(stored.ok && stored.annotation.turns.map((turn) => turn.text)).toEqual(['hello']);
  });

  it('reopens the same data directory on the same port at once', async () => {
    server = await startTestServer();
    const port = server.port;
    for (let round = 0; round < 3; round++) await server.restart();
    expect(server.port).toBe(port);
    expect((await server.api('/api/docs')).status).toBe(200);
  });

  it('lists a renamed document under its new title, most recently changed first', async () => {
    server = await startTestServer();
    const older = await createDoc({ title: 'Older' });
    const newer = await createDoc({ title: 'Newer' });
    const writer = peer(older);
    await writer.synced;
    docParts(writer.ydoc).meta.set('title', 'Renamed');
    await waitFor(async () => (await server.api(`/api/docs/${older}`)).body.title === 'Renamed');
    writer.destroy();

    await waitFor(async () => (await server.api('/api/docs')).body[0].title === 'Renamed');
    const list = (await server.api('/api/docs')).body;
    expect(list.map((doc: { id: string }) => doc.id)).toEqual([older, newer]);
    expect(Date.parse(list[0].updatedAt)).toBeGreaterThanOrEqual(Date.parse(list[1].updatedAt));
    expect(list[0].updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
