import * as Y from 'yjs';

/**
 * Every state of a document that a crash could leave in a store holding `state` and the update
 * log `log` (oldest first): the state with the first 1, 2, … entries (an entry is one commit).
 */
export function logPrefixes(state: Uint8Array | null, log: readonly Uint8Array[]): Y.Doc[] {
  const replica = new Y.Doc();
  if (state) Y.applyUpdate(replica, state);
  return log.map((update) => {
    Y.applyUpdate(replica, update);
    const prefix = new Y.Doc();
    Y.applyUpdate(prefix, Y.encodeStateAsUpdate(replica));
    return prefix;
  });
}
