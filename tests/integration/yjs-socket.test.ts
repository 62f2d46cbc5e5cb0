import { describe, expect, it } from 'vitest';
import type { Role } from '../../shared/protocol/claims.ts';
import { readBlocks } from '../../shared/model/doc-content.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { readAnnotations } from '../../shared/notes/annotations.ts';
import { denialReasons } from '../../shared/protocol/denials.ts';
import { readPresenceUser } from '../../shared/protocol/presence.ts';
import { connectPeer, roundTrip, waitFor, type Peer } from '../helpers/peer.ts';
import { connectYjsPeer, yjsRoundTrip, yjsUrl, type YjsPeer } from '../helpers/yjs-peer.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { appendParagraph } from '../helpers/doc-builder.ts';
import { addAnnotation } from '../helpers/notes.ts';
import { decodeClaims } from '../../shared/protocol/claims.ts';

const server = useTestServer();

function collab(name: string, token = server.ownerToken): Peer {
  return server.track(connectPeer({ wsUrl: server.wsUrl, name, token }));
}

function yjs(name: string, token: string): YjsPeer {
  return server.track(connectYjsPeer({ wsUrl: server.wsUrl, name, token }));
}

function texts(peer: { ydoc: Parameters<typeof readBlocks>[0] }): string[] {
  return readBlocks(peer.ydoc).map((block) => block.markdown);
}

/** The text as the server holds it, read by a fresh /collab editor. */
async function serverText(id: string): Promise<string[]> {
  const reader = collab(id);
  await reader.synced;
  return texts(reader);
}

describe('the y-websocket endpoint', () => {
  it('[YWS1] carries an editor’s edit from /yjs to a /collab provider and back, live', async () => {
    const id = await server.createDoc('Bridged', 'original');
    const browser = collab(id);
    const outside = yjs(id, server.token('editor'));
    await Promise.all([browser.synced, outside.synced]);
    expect(texts(outside)).toEqual(['original']);

    appendParagraph(outside.ydoc, 'from a Yjs client');
    await waitFor(() => texts(browser).includes('from a Yjs client'));
    appendParagraph(browser.ydoc, 'from the app');
    await waitFor(() => texts(outside).includes('from the app'));
    expect(texts(outside)).toEqual(texts(browser));
  });

  it.each<[Role, 'keeps' | 'drops']>([
    ['editor', 'keeps'],
    ['commenter', 'drops'],
    ['viewer', 'drops'],
    ['agent', 'drops'],
  ])('[YWS1] for the %s role, %s text writes sent on /yjs', async (role, verdict) => {
    const id = await server.createDoc('Roles', 'original');
    const watcher = collab(id);
    const writer = yjs(id, server.token(role));
    await Promise.all([watcher.synced, writer.synced]);
    appendParagraph(writer.ydoc, `written by ${role}`);
    await yjsRoundTrip(writer);
    await roundTrip(watcher);
    const expected = verdict === 'keeps' ? ['original', `written by ${role}`] : ['original'];
    expect(texts(watcher)).toEqual(expected);
    expect(await serverText(id)).toEqual(expected);
  });

  it('[YWS1] keeps an editor’s /yjs edit across a restart of the server', async () => {
    const id = await server.createDoc('Durable', 'original');
    const writer = yjs(id, server.token('editor'));
    await writer.synced;
    appendParagraph(writer.ydoc, 'still here');
    await yjsRoundTrip(writer);
    writer.destroy();
    await server.restart();
    expect(await serverText(id)).toEqual(['original', 'still here']);
  });

  it('[YWS1] records the /yjs connection in the document’s audit log under the token’s principal', async () => {
    const id = await server.createDoc('Audited', 'original');
    const peer = yjs(id, server.token('viewer', { sub: 'yjs-reader', name: 'Reader' }));
    await peer.synced;
    const opened = async () =>
      ((await server.api(`/api/docs/${id}/audit`)).body.entries as { action: string; actor: { id: string } }[]).filter(
        (entry) => entry.action === 'doc.opened' && entry.actor.id === 'yjs-reader',
      );
    await waitFor(async () => (await opened()).length === 1);
    expect((await opened())[0].actor).toEqual({ id: 'yjs-reader', name: 'Reader', role: 'viewer' });
  });

  it('[YWS4] applies the notes rules to /yjs/<id>/notes: a commenter’s own comment stays, a forged author closes the socket', async () => {
    const id = await server.createDoc('Notes', 'original');
    const token = server.token('commenter', { sub: 'c-1', name: 'Cora' });
    const honest = yjs(docName(id, 'notes'), token);
    await honest.synced;
    addAnnotation(honest.ydoc, { id: 'c-1', name: 'Cora' }, { id: 'n-own', text: 'mine' });
    await yjsRoundTrip(honest);

    const forger = yjs(docName(id, 'notes'), token);
    await forger.synced;
    addAnnotation(forger.ydoc, { id: 'someone-else', name: 'Ana' }, { id: 'n-forged', text: 'not mine' });
    const closed = await forger.closed;
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(/^\[NOTES\d+\]/);

    const reader = collab(docName(id, 'notes'));
    await reader.synced;
    expect(readAnnotations(reader.ydoc).annotations.map((note) => note.id)).toEqual(['n-own']);
  });

  it.each<Role>(['viewer', 'agent'])('[YWS4] drops a %s’s note sent on /yjs/<id>/notes, where a commenter’s stays', async (role) => {
    const id = await server.createDoc('Read-only notes', 'original');
    const commenter = yjs(docName(id, 'notes'), server.token('commenter', { sub: 'c-2', name: 'Cora' }));
    const reader = yjs(docName(id, 'notes'), server.token(role, { sub: 'r-2', name: 'Rita' }));
    await Promise.all([commenter.synced, reader.synced]);
    addAnnotation(commenter.ydoc, { id: 'c-2', name: 'Cora' }, { id: 'n-commenter', text: 'kept' });
    addAnnotation(reader.ydoc, { id: 'r-2', name: 'Rita' }, { id: 'n-reader', text: 'dropped' });
    await Promise.all([yjsRoundTrip(commenter), yjsRoundTrip(reader)]);
    const view = collab(docName(id, 'notes'));
    await view.synced;
    expect(readAnnotations(view.ydoc).annotations.map((note) => note.id)).toEqual(['n-commenter']);
  });

  it('[YWS5] shows a /yjs peer’s presence with the token’s name and role, whatever it claims', async () => {
    const id = await server.createDoc('Presence', 'original');
    const browser = collab(id);
    const outside = yjs(id, server.token('agent', { name: 'Script' }));
    await Promise.all([browser.synced, outside.synced]);
    outside.provider.awareness.setLocalStateField('user', { name: 'Owner', role: 'editor', color: '#112233' });
    await waitFor(() =>
      [...browser.provider.awareness!.getStates().values()].some((state) => readPresenceUser(state)?.name === 'Script'),
    );
    const users = [...browser.provider.awareness!.getStates().values()].map(readPresenceUser).filter((user) => user !== null);
    expect(users).toContainEqual({ name: 'Script', role: 'agent', color: '#112233' });
    expect(users.some((user) => user.name === 'Owner' && user.role === 'editor')).toBe(false);
  });
});

describe('refused /yjs connections', () => {
  it.each([
    ['a malformed token', () => 'garbage', denialReasons.invalidToken, 4401],
    ['no token', () => '', denialReasons.invalidToken, 4401],
    ['a viewer token for another document', () => server.token('viewer', { doc: 'otherdoc' }), denialReasons.notAllowed, 4403],
  ])('[YWS3] closes the socket for %s with its code and reason, and changes nothing', async (_label, token, reason, code) => {
    const id = await server.createDoc('Refused', 'original');
    const peer = yjs(id, token());
    appendParagraph(peer.ydoc, 'from outside');
    expect(await peer.closed).toEqual({ code, reason });
    expect(texts(peer)).toEqual(['from outside']);
    expect(await serverText(id)).toEqual(['original']);
  });

  it('[YWS3] closes the socket of a revoked token with 4401 "Token revoked"', async () => {
    const id = await server.createDoc('Revoked', 'original');
    const token = server.token('editor');
    const peer = yjs(id, token);
    await peer.synced;
    await server.revoke(decodeClaims(token)!.jti!, null);
    expect(await peer.closed).toEqual({ code: 4401, reason: denialReasons.revokedToken });
  });

  it('[YWS1] takes the token from an Authorization header too', async () => {
    const id = await server.createDoc('Header', 'original');
    const { default: WebSocket } = await import('ws');
    const connect = (token: string) => new WebSocket(`${yjsUrl(server.wsUrl)}/${id}`, { headers: { authorization: `Bearer ${token}` } });
    const admitted = connect(server.token('viewer'));
    const firstFrame = new Promise<Uint8Array>((resolve) => admitted.once('message', (data: Buffer) => resolve(new Uint8Array(data))));
    await new Promise((resolve) => admitted.once('open', resolve));
    admitted.send(Uint8Array.of(0, 0, 1, 0));
    expect((await firstFrame)[0]).toBe(0);
    admitted.close();
    const refused = connect('garbage');
    const closed = await new Promise<number>((resolve) => refused.once('close', (code) => resolve(code)));
    expect(closed).toBe(4401);
  });

  it('[YWS1] answers 404 to an upgrade at /yjs without a document name', async () => {
    const { default: WebSocket } = await import('ws');
    const socket = new WebSocket(`${yjsUrl(server.wsUrl)}/`);
    const status = await new Promise<number>((resolve) => socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(404);
  });
});
