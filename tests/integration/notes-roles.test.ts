import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { readAnnotation, readAnnotations, type Author } from '../../shared/notes/annotations.ts';
import { addTurn, deleteAnnotation, setInstructionState } from '../../shared/notes/annotations-writers.ts';
import type { Role } from '../../shared/protocol/claims.ts';
import { docName, notesParts } from '../../shared/model/doc-layout.ts';
import { connectPeer, roundTrip, waitFor, type Peer } from '../helpers/peer.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { addAnnotation } from '../helpers/notes.ts';

/*
 * A refused update closes its connection from inside the server's handling of that update
 * (Connection's message queue), so once the close reaches the writer, the server is done with
 * it; an observer's round trip started after that (helpers/peer.ts, roundTrip) brings the
 * server's whole state, the update included had it been applied.
 */

const server = useTestServer();

const people: Record<string, { author: Author; role: Role }> = {
  ed: { author: { id: 'ed', name: 'Ed' }, role: 'editor' },
  cora: { author: { id: 'cora', name: 'Cora' }, role: 'commenter' },
};

interface NotesPeer extends Peer {
  /** The reasons the server gave for closing this connection. */
  closed: string[];
}

function notesPeer(id: string, who: keyof typeof people, ydoc?: Y.Doc): NotesPeer {
  const { author, role } = people[who];
  const token = server.token(role, { sub: author.id, name: author.name });
  const peer = connectPeer({ wsUrl: server.wsUrl, name: docName(id, 'notes'), token, ydoc });
  server.track(peer);
  const closed: string[] = [];
  peer.provider.on('close', ({ event }: { event: { reason: string } }) => closed.push(event.reason));
  return Object.assign(peer, { closed });
}

async function createDoc(): Promise<string> {
  return (await server.api('/api/docs', { method: 'POST', body: { title: 'Guarded notes', markdown: 'some text' } })).body.id;
}

/** The records the server holds, as `id kind state`, read by the API. */
async function stored(id: string): Promise<string[]> {
  const { body } = await server.api(`/api/docs/${id}`);
  return body.annotations.map((note: { id: string; kind: string; state?: string }) => [note.id, note.kind, note.state].filter(Boolean).join(' '));
}

const summary = (ydoc: Y.Doc) =>
  readAnnotations(ydoc).annotations.map((note) => [note.id, note.kind, note.kind === 'instruction' ? note.state : ''].filter(Boolean).join(' '));

describe('notes written over Yjs', () => {
  it('passes a commenter’s comment and reply on to everyone', async () => {
    const id = await createDoc();
    const [cora, ed] = [notesPeer(id, 'cora'), notesPeer(id, 'ed')];
    await Promise.all([cora.synced, ed.synced]);
    const comment = addAnnotation(cora.ydoc, people.cora.author, { text: 'Is this right?' });
    addTurn(cora.ydoc, comment, { author: people.cora.author, text: 'I think not.', now: Date.now() });
    await waitFor(() => readAnnotation(ed.ydoc, comment).ok);
    await waitFor(async () => (await stored(id)).length === 1);
    expect(cora.closed).toEqual([]);
  });

  it('refuses a commenter’s forged instruction: no other peer and no stored document ever has it', async () => {
    const id = await createDoc();
    const [cora, ed] = [notesPeer(id, 'cora'), notesPeer(id, 'ed')];
    await Promise.all([cora.synced, ed.synced]);
    const forged = addAnnotation(cora.ydoc, people.cora.author, { kind: 'instruction', text: 'delete' });
    await waitFor(() => cora.closed.length > 0);
    expect(cora.closed[0]).toMatch(/^\[NOTES7\] /);
    await roundTrip(ed);
    expect(readAnnotation(ed.ydoc, forged).ok).toBe(false);
    expect(await stored(id)).toEqual([]);
    const fresh = notesPeer(id, 'ed');
    await fresh.synced;
    expect(notesParts(fresh.ydoc).annotations.size).toBe(0);
    const honest = addAnnotation(ed.ydoc, people.ed.author, { text: 'still open for business' });
    await waitFor(() => readAnnotation(fresh.ydoc, honest).ok);
    expect(await stored(id)).toEqual([`${honest} comment`]);
  });

  it('refuses a forged record a commenter brings along when it connects', async () => {
    const id = await createDoc();
    const offline = new Y.Doc();
    addAnnotation(offline, people.cora.author, { kind: 'instruction', text: 'delete' });
    const cora = notesPeer(id, 'cora', offline);
    await waitFor(() => cora.closed.length > 0);
    expect(cora.closed[0]).toMatch(/^\[NOTES7\] /);
    expect(await stored(id)).toEqual([]);
  });

  it('keeps a commenter from moving an instruction back to draft or deleting another’s comment', async () => {
    const id = await createDoc();
    const ed = notesPeer(id, 'ed');
    await ed.synced;
    const instruction = addAnnotation(ed.ydoc, people.ed.author, { kind: 'instruction', text: 'uppercase' });
    const comment = addAnnotation(ed.ydoc, people.ed.author, { text: 'fine' });
    await waitFor(async () => (await stored(id)).length === 2);
    const expected = await stored(id);

    for (const forge of [
      (ydoc: Y.Doc) => setInstructionState(ydoc, instruction, 'draft', null),
      (ydoc: Y.Doc) => deleteAnnotation(ydoc, comment),
    ]) {
      const cora = notesPeer(id, 'cora');
      await cora.synced;
      forge(cora.ydoc);
      await waitFor(() => cora.closed.length > 0);
      await roundTrip(ed);
      expect(summary(ed.ydoc)).toEqual(expected);
      expect(await stored(id)).toEqual(expected);
    }
  });

  it('keeps an editor from marking an instruction sent, and lets them move it to draft', async () => {
    const id = await createDoc();
    const [ed, watcher] = [notesPeer(id, 'ed'), notesPeer(id, 'ed')];
    await Promise.all([ed.synced, watcher.synced]);
    const instruction = addAnnotation(ed.ydoc, people.ed.author, { kind: 'instruction', text: 'uppercase' });
    setInstructionState(ed.ydoc, instruction, 'draft', null);
    await waitFor(async () => (await stored(id)).join() === `${instruction} instruction draft`);
    setInstructionState(ed.ydoc, instruction, 'queued', null);
    setInstructionState(ed.ydoc, instruction, 'sent', 'rforged00000');
    await waitFor(() => ed.closed.length > 0);
    expect(ed.closed[0]).toMatch(/^\[NOTES6\] /);
    await roundTrip(watcher);
    expect(summary(watcher.ydoc)).toEqual([`${instruction} instruction queued`]);
    expect(await stored(id)).toEqual([`${instruction} instruction queued`]);
  });

  it('resets the WebSocket of a peer whose update depends on changes the server never got', async () => {
    const id = await createDoc();
    const ed = notesPeer(id, 'ed');
    await ed.synced;
    const local = new Y.Doc();
    const note = addAnnotation(local, people.ed.author, { text: 'never sent' });
    const before = Y.encodeStateVector(local);
    addTurn(local, note, { author: people.ed.author, text: 'a reply to it', now: Date.now() });
    const dependent = Y.encodeStateAsUpdate(local, before);
    const statuses: string[] = [];
    ed.provider.configuration.websocketProvider.on('status', ({ status }: { status: string }) => statuses.push(status));
    ed.provider.configuration.websocketProvider.send(syncUpdateMessage(ed.provider.effectiveName, dependent));
    await waitFor(() => statuses.includes('disconnected'));
    await waitFor(() => statuses.at(-1) === 'connected', 10_000);
    const honest = addAnnotation(ed.ydoc, people.ed.author, { text: 'written after the reset' });
    await waitFor(async () => (await stored(id)).length > 0);
    expect(await stored(id)).toEqual([`${honest} comment`]);
  });
});

/** A Hocuspocus Sync message carrying a Yjs update (y-protocols messageYjsUpdate), as a provider frames it. */
function syncUpdateMessage(documentName: string, update: Uint8Array): Uint8Array {
  const name = new TextEncoder().encode(documentName);
  return new Uint8Array([...varUint(name.length), ...name, 0, 2, ...varUint(update.length), ...update]);
}

function varUint(value: number): number[] {
  const bytes: number[] = [];
  while (value > 0x7f) {
    bytes.push(0x80 | (value & 0x7f));
    value >>>= 7;
  }
  bytes.push(value);
  return bytes;
}
