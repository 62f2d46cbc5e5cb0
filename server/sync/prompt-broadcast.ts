import type { Document } from '@hocuspocus/server';

/**
 * Sends the first update of each event-loop turn to the document's connections at once, inside
 * the Y.Doc's `update` event, instead of at the end of the turn (Hocuspocus buffers a document's
 * updates until `setImmediate`, see its `flushDelay`). The rest of that event takes the update
 * for the log (server/sync/group-commit.ts, DUR1), then Hocuspocus acknowledges it and runs its
 * hooks: the other peers wait for none of it, nor for the commit. Updates that follow in the same
 * turn (a burst read from one socket) are merged and sent together at the end of the turn, before
 * their commit (the group commit flushes them).
 *
 * Peers may so hold an update a moment before it is on disk. Only its sender's acknowledgement
 * waits for the disk (DUR1): a crash in between loses nothing that was acknowledged, and the
 * peers that hold it give it back when they sync again.
 *
 * Call it before the append's listener is registered: its listener must run first.
 */
export function broadcastPromptly(document: Document): void {
  let sentThisTurn = false;
  document.on('update', () => {
    if (sentThisTurn) return;
    sentThisTurn = true;
    document.flush();
    setImmediate(() => (sentThisTurn = false));
  });
}
