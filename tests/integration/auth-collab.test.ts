import * as Y from 'yjs';
import { HocuspocusProvider } from '@hocuspocus/provider';
import { describe, expect, it } from 'vitest';
import type { Role } from '../../shared/protocol/claims.ts';
import { readBlocks } from '../../shared/model/doc-content.ts';
import { docName, runsParts } from '../../shared/model/doc-layout.ts';
import { denialReasons } from '../../shared/protocol/denials.ts';
import { afterHandled, connectPeer, roundTrip, type Peer } from '../helpers/peer.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { appendParagraph } from '../helpers/doc-builder.ts';
import { addAnnotation } from '../helpers/notes.ts';
import { readAnnotations } from '../../shared/notes/annotations.ts';

const server = useTestServer();

function connect(name: string, token: string): Peer {
  const peer = connectPeer({ wsUrl: server.wsUrl, name, token });
  server.track(peer);
  return peer;
}

async function createDoc(): Promise<string> {
  return (await server.api('/api/docs', { method: 'POST', body: { title: 'Guarded', markdown: 'original' } })).body.id;
}

/** The server's view of a document, read by a fresh editor peer. */
async function serverView(id: string) {
  const text = connect(docName(id), server.token('editor'));
  const notes = connect(docName(id, 'notes'), server.token('editor'));
  const runs = connect(docName(id, 'runs'), server.token('editor'));
  await Promise.all([text.synced, notes.synced, runs.synced]);
  return {
    text: readBlocks(text.ydoc).map((block) => block.markdown),
    notes: readAnnotations(notes.ydoc).annotations.map((note) => `${note.id} ${note.turns[0].text}`),
    runs: runsParts(runs.ydoc).runs.toJSON(),
  };
}

/** Connects `role` to all three parts of `id` and writes to each. */
async function writeEverything(id: string, role: Role): Promise<Peer[]> {
  const author = { id: `writer-${role}`, name: `A ${role}` };
  const token = server.token(role, { sub: author.id, name: author.name });
  const [text, notes, runs] = [connect(id, token), connect(`${id}/notes`, token), connect(`${id}/runs`, token)];
  await Promise.all([text.synced, notes.synced, runs.synced]);
  appendParagraph(text.ydoc, `written by ${role}`);
  addAnnotation(notes.ydoc, author, { id: 'n1', text: `by ${role}` });
  runsParts(runs.ydoc).runs.set('r1', { by: role });
  await Promise.all([text, notes, runs].map(roundTrip));
  return [text, notes, runs];
}

describe('Yjs access by role', () => {
  it.each<[Role, 'keeps' | 'drops', 'keeps' | 'drops']>([
    ['editor', 'keeps', 'keeps'],
    ['commenter', 'drops', 'keeps'],
    ['viewer', 'drops', 'drops'],
    ['agent', 'drops', 'drops'],
  ])('for the %s role, %s text writes, %s notes writes and drops runs writes', async (role, text, notes) => {
    const id = await createDoc();
    await writeEverything(id, role);
    const view = await serverView(id);
    expect(view.text).toEqual(text === 'keeps' ? ['original', `written by ${role}`] : ['original']);
    expect(view.notes).toEqual(notes === 'keeps' ? [`n1 by ${role}`] : []);
    expect(view.runs).toEqual({});
    const api = await server.api(`/api/docs/${id}`);
    expect(api.body.blocks.map((block: { markdown: string }) => block.markdown)).toEqual(view.text);
  });

  it.each<[Role, string, string]>([
    ['editor', 'read-write', 'read-write'],
    ['commenter', 'readonly', 'read-write'],
    ['viewer', 'readonly', 'readonly'],
    ['agent', 'readonly', 'readonly'],
  ])('tells a %s its text connection is %s and its notes connection %s', async (role, text, notes) => {
    const id = await createDoc();
    const token = server.token(role);
    const [textPeer, notesPeer, runsPeer] = [connect(id, token), connect(`${id}/notes`, token), connect(`${id}/runs`, token)];
    await Promise.all([textPeer.synced, notesPeer.synced, runsPeer.synced]);
    expect([textPeer.provider.authorizedScope, notesPeer.provider.authorizedScope, runsPeer.provider.authorizedScope]).toEqual([
      text,
      notes,
      'readonly',
    ]);
  });

  it('does not pass a viewer’s edit on to the editors connected meanwhile', async () => {
    const id = await createDoc();
    const watcher = connect(id, server.token('editor'));
    const viewer = connect(id, server.token('viewer'));
    await Promise.all([watcher.synced, viewer.synced]);
    appendParagraph(viewer.ydoc, 'sneaky');
    await afterHandled([viewer], watcher);
    expect(readBlocks(watcher.ydoc).map((block) => block.markdown)).toEqual(['original']);
  });
});

describe('refused connections', () => {
  it.each([
    ['a malformed token', 'garbage'],
    ['an empty token', ''],
    ['a token whose signature was altered', 'tampered'],
  ])('[DOC4] refuses %s with the reason "Invalid token"', async (_label, kind) => {
    const id = await createDoc();
    const token = kind === 'tampered' ? server.token('editor').slice(0, -2) + 'AA' : kind;
    const peer = connect(id, token);
    expect(await peer.authenticationFailed).toBe(denialReasons.invalidToken);
    await expect(peer.synced).rejects.toThrow('Invalid token');
  });

  it.each(['[DOC4] nosuchdoc', 'bad name', 'a/b/c', 'a/other'])('refuses the document name "%s" as "Unknown document"', async (name) => {
    const peer = connect(name, server.token('editor'));
    expect(await peer.authenticationFailed).toBe(denialReasons.unknownDocument);
  });

  it('[DOC1] admits a document-limited token to every part of its document only', async () => {
    const id = await createDoc();
    const other = await createDoc();
    const token = server.token('editor', { doc: id });
    const own = [connect(id, token), connect(`${id}/notes`, token)];
    await Promise.all(own.map((peer) => peer.synced));
    for (const name of [other, `${other}/notes`, 'nosuchdoc']) {
      expect(await connect(name, token).authenticationFailed).toBe(denialReasons.notAllowed);
    }
  });

  it('changes nothing when a refused peer writes anyway', async () => {
    const id = await createDoc();
    const peer = connect(id, 'garbage');
    await peer.authenticationFailed;
    appendParagraph(peer.ydoc, 'from outside');
    await socketRoundTrip(peer, `${id}/notes`);
    expect((await serverView(id)).text).toEqual(['original']);
  });
});

/**
 * A barrier for a peer whose own document was refused: a second provider on the same WebSocket
 * authenticates to `otherName` and syncs. The server reads one socket's frames in order, so
 * by then it has handled every frame `peer` sent before (an update for a refused document is
 * queued behind an authentication that never comes).
 */
async function socketRoundTrip(peer: Peer, otherName: string): Promise<void> {
  const other = new HocuspocusProvider({
    websocketProvider: peer.provider.configuration.websocketProvider,
    name: otherName,
    document: new Y.Doc(),
    token: server.token('viewer'),
  });
  try {
    const synced = new Promise<void>((resolve) => other.on('synced', () => resolve()));
    other.attach();
    await synced;
  } finally {
    other.destroy();
  }
}
