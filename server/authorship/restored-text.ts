import * as Y from 'yjs';
import type { RestoredRange } from '../store/authorship-book.ts';
import type { ClientOwners } from './client-owners.ts';
import { freshClientId } from './agent-writers.ts';

/** The subject that owns the client ids of restored text; no token is ever issued for it. */
const restoreSubject = 'server:restore';

/**
 * WHO4: runs `write` (an undo or a redo of a run: Discard, Revert, their undoing), which Yjs
 * carries out by writing copies of the items it brings back, under a fresh client id, then
 * claims that id with where each of its items came from (Yjs links an item to its copy through
 * `redone`), so that text brought back keeps its writer. `write` must be synchronous; the claim
 * follows it.
 */
export function writeRestoring<T>(owners: ClientOwners, ydoc: Y.Doc, docId: string, write: () => T): Promise<T> {
  return writeCopies(owners, ydoc, docId, write, (client) => copiesUnder(ydoc, client));
}

/**
 * Runs `write`, which writes copies of items, under a fresh client id of `ydoc`, then claims
 * that id with `rangesOf(client, result)`: which item each of its items copies (WHO4; HIST4's
 * restore says so itself). `write` must be synchronous; the claim follows it.
 */
export async function writeCopies<T>(
  owners: ClientOwners,
  ydoc: Y.Doc,
  docId: string,
  write: () => T,
  rangesOf: (client: number, result: T) => RestoredRange[],
): Promise<T> {
  let client: number;
  do client = freshClientId();
  while (ydoc.store.clients.has(client));
  const own = ydoc.clientID;
  ydoc.clientID = client;
  let result: T;
  try {
    result = write();
  } finally {
    ydoc.clientID = own;
  }
  if (ydoc.store.clients.has(client)) {
    await owners.claim(docId, [{ client, subject: restoreSubject, author: { kind: 'restored', ranges: rangesOf(client, result) } }]);
  }
  return result;
}

/** Where the items under `client` were copied from: every item of the document whose copy is under `client`. */
function copiesUnder(ydoc: Y.Doc, client: number): RestoredRange[] {
  const ranges: RestoredRange[] = [];
  for (const structs of ydoc.store.clients.values()) {
    for (const struct of structs) {
      if (!(struct instanceof Y.Item) || struct.redone === null || struct.redone.client !== client) continue;
      ranges.push({ clock: struct.redone.clock, length: struct.length, fromClient: struct.id.client, fromClock: struct.id.clock });
    }
  }
  return ranges.sort((a, b) => a.clock - b.clock);
}
