import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { notesParts } from '../../shared/model/doc-layout.ts';
import { readAnnotation } from '../../shared/notes/annotations.ts';
import { addTurn } from '../../shared/notes/annotations-writers.ts';
import { waitFor } from '../helpers/peer.ts';
import { addAnnotation } from '../helpers/notes.ts';
import { notesPeer, notesSummary, serverNotes, type Principal } from '../helpers/notes-peers.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

const server = useTestServer();

const ed: Principal = { sub: 'ed', name: 'Ed', role: 'editor' };
const cora: Principal = { sub: 'cora', name: 'Cora', role: 'commenter' };
const author = (who: Principal) => ({ id: who.sub, name: who.name });

/** Writes, as one change, a comment of schema version 2 with a field this version does not know. */
function addNewerComment(ydoc: Y.Doc, text: string): string {
  let id = '';
  ydoc.transact(() => {
    id = addAnnotation(ydoc, author(ed), { text });
    const record = notesParts(ydoc).annotations.get(id) as Y.Map<unknown>;
    record.set('v', 2);
    record.set('color', 'teal');
  });
  return id;
}

describe('records of a newer schema version', () => {
  it('[VER5] are accepted and kept whole, by the server and every peer, with no refusal on reconnect', async () => {
    const id = await server.createDoc('Newer notes', 'some text');
    const newer = notesPeer(server, id, ed);
    await newer.synced;
    const comment = addNewerComment(newer.ydoc, 'from a newer build');
    await waitFor(async () => (await serverNotes(server, id)) === notesSummary(newer.ydoc));
    expect(newer.closed).toEqual([]);

    // This version reads it for what it knows, and a reply written beside it keeps its fields.
    const older = notesPeer(server, id, cora);
    await older.synced;
    const read = readAnnotation(older.ydoc, comment);
    expect(read.ok && read.annotation.turns.map((turn) => turn.text)).toEqual(['from a newer build']);
    expect(addTurn(older.ydoc, comment, { author: author(cora), text: 'a reply', now: Date.now() }).ok).toBe(true);
    await waitFor(async () => (await serverNotes(server, id)) === notesSummary(older.ydoc));
    expect(older.closed).toEqual([]);
    const listed = await server.api(`/api/docs/${id}`);
    expect(listed.body.annotations.map((annotation: { id: string }) => annotation.id)).toEqual([comment]);

    // The newer peer comes back after a restart with the record in its replica: it syncs, and
    // a change it makes after the sync (the barrier) is accepted too.
    const replica = new Y.Doc();
    Y.applyUpdate(replica, Y.encodeStateAsUpdate(newer.ydoc));
    newer.destroy();
    await server.restart();
    const back = notesPeer(server, id, ed, replica);
    await back.synced;
    addNewerComment(back.ydoc, 'after the reconnect');
    await waitFor(async () => (await serverNotes(server, id)) === notesSummary(back.ydoc));
    expect(back.closed).toEqual([]);
    const stored = (notesParts(back.ydoc).annotations.get(comment) as Y.Map<unknown>).toJSON();
    expect(stored).toMatchObject({ v: 2, color: 'teal' });
    expect(stored.turns.map((turn: { text: string }) => turn.text)).toEqual(['from a newer build', 'a reply']);
  });

  it('[VER5] refuses a record whose version is not a positive integer, as a malformed record (NOTES2)', async () => {
    const id = await server.createDoc('Malformed version', 'some text');
    const peer = notesPeer(server, id, ed);
    await peer.synced;
    peer.ydoc.transact(() => {
      const comment = addAnnotation(peer.ydoc, author(ed), { text: 'odd version' });
      (notesParts(peer.ydoc).annotations.get(comment) as Y.Map<unknown>).set('v', 'two');
    });
    await waitFor(() => peer.closed.length > 0);
    expect(peer.closed[0]).toMatch(/^\[NOTES2\] .*v must be a positive integer/);
  });
});
