import * as Y from 'yjs';
import type { Role } from '../../shared/protocol/claims.ts';
import type { Author } from '../../shared/notes/annotations.ts';
import { docName, notesParts } from '../../shared/model/doc-layout.ts';
import { canonicalJson } from '../../shared/notes/notes-rules.ts';
import { connectPeer, type Peer } from './peer.ts';
import type { FileServer } from './use-test-server.ts';

export interface NotesPeer extends Peer {
  /** The reasons the server gave for closing this connection, in order (a socket dropped without one is left out). */
  closed: string[];
}

export interface Principal {
  sub: string;
  name: string;
  role: Role;
}

/** A provider on `<id>/notes` for `who`, destroyed after the test. */
export function notesPeer(server: FileServer, docId: string, who: Principal, ydoc?: Y.Doc): NotesPeer {
  const token = server.token(who.role, { sub: who.sub, name: who.name });
  const peer = server.track(connectPeer({ wsUrl: server.wsUrl, name: docName(docId, 'notes'), token, ydoc }));
  const closed: string[] = [];
  peer.provider.on('close', ({ event }: { event: { reason: string } }) => {
    if (event.reason) closed.push(event.reason);
  });
  return Object.assign(peer, { closed });
}

/** `author`, with `role`, on the text and the notes of `docId` (both synced); destroyed after the test. */
export async function textAndNotesPeers(server: FileServer, docId: string, role: Role, author: Author): Promise<{ text: Peer; notes: Peer }> {
  const token = server.token(role, { sub: author.id, name: author.name });
  const [text, notes] = [server.connect(docId, token), server.connect(docName(docId, 'notes'), token)];
  await Promise.all([text.synced, notes.synced]);
  return { text, notes };
}

/**
 * What a notes Y.Doc holds, for comparing: its state vector (grows with anything inserted), its
 * top-level types, and the JSON of its annotations. Equal summaries, nothing was written.
 */
export function notesSummary(ydoc: Y.Doc): string {
  const { annotations } = notesParts(ydoc);
  const types = [...ydoc.share.keys()].sort();
  return canonicalJson({
    stateVector: [...Y.decodeStateVector(Y.encodeStateVector(ydoc))].sort(([a], [b]) => a - b),
    types,
    annotations: annotations.toJSON(),
  });
}

/** The notes of `docId` as the server serves them now, read by a fresh viewer. */
export async function serverNotes(server: FileServer, docId: string): Promise<string> {
  const viewer = connectPeer({ wsUrl: server.wsUrl, name: docName(docId, 'notes'), token: server.token('viewer') });
  try {
    await viewer.synced;
    return notesSummary(viewer.ydoc);
  } finally {
    viewer.destroy();
  }
}
