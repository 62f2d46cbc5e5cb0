import type * as Y from 'yjs';
import type { ClientOwners } from './client-owners.ts';
import { freshClientId } from './agent-writers.ts';

/**
 * WHO6: runs `write` (a server-side write on a person's behalf, such as an import into the
 * document) under a fresh client id claimed for that person first, so that the text it adds
 * is theirs; the document's own id is restored afterwards.
 */
export async function writeAsPerson<T>(
  owners: ClientOwners,
  ydoc: Y.Doc,
  docId: string,
  person: { subject: string; name: string },
  write: () => T,
): Promise<T> {
  let client: number;
  do client = freshClientId();
  while (ydoc.store.clients.has(client));
  const stored = await owners.claim(docId, [{ client, subject: person.subject, author: { kind: 'person', name: person.name } }]);
  const own = ydoc.clientID;
  if (stored.get(client) === person.subject) ydoc.clientID = client;
  try {
    return write();
  } finally {
    ydoc.clientID = own;
  }
}
