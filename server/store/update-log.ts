import * as Y from 'yjs';

/**
 * What is on disk for one Hocuspocus document: the state written by its last compaction and the
 * updates logged since, oldest first. Together they are everything the server acknowledged.
 */
export interface StoredDocument {
  /** The compacted state (`Y.encodeStateAsUpdate`), or null if none was written. */
  state: Uint8Array | null;
  updates: Uint8Array[];
  /** The sequence number of the last of `updates`; 0 when there are none. */
  lastSeq: number;
}

/**
 * The append-only log of Yjs updates that makes an acknowledged edit durable, and its compaction
 * into the document state (README "Durability", rules DUR1–DUR5 in shared/PROTOCOL.md).
 *
 * `append` and `appendAll` are synchronous by contract. Hocuspocus applies a client's update and
 * sends the acknowledgement (its SyncStatus message) in one synchronous stretch; the only code
 * that runs between the two is the Y.Doc's `update` event, so an update is either on disk when
 * that event returns or its socket's frames are held until it is (the turn's group commit,
 * server/extensions/persistence.ts, server/outbox.ts), and a server-side write is on disk when
 * its `transact` returns. A store that can only write asynchronously implements AsyncUpdateLog
 * instead.
 */
export interface UpdateLog {
  readonly appendsAsynchronously?: false;
  /** Appends one update of the document `name`; returns its sequence number, larger than every earlier one of `name`. */
  append(name: string, update: Uint8Array): number;
  /**
   * Appends each entry, in order, in one transaction: all or nothing (one commit for many updates,
   * see Persistence). Returns their sequence numbers, in the same order.
   */
  appendAll(entries: readonly { name: string; update: Uint8Array }[]): number[];
  read(name: string): Promise<StoredDocument>;
  /**
   * Makes `state` the document's stored state and deletes its logged updates up to and including
   * `throughSeq`, all or nothing. `state` must contain every update up to `throughSeq`; updates
   * logged after it stay.
   */
  compact(name: string, state: Uint8Array, throughSeq: number): Promise<void>;
}

/**
 * The update log of a store that writes asynchronously (PostgreSQL), shared by every instance
 * of a cluster (SCALE2, server/extensions/async-persistence.ts): a client's update is appended
 * in Hocuspocus's `beforeSync` hook, awaited before the update is applied and acknowledged, and
 * a server-side write is awaited before the route that made it answers.
 */
export interface AsyncUpdateLog {
  readonly appendsAsynchronously: true;
  /** Appends one update of `name`; resolves, once it is on disk, to its sequence number, larger than every earlier one of `name`. */
  append(name: string, update: Uint8Array): Promise<number>;
  read(name: string): Promise<StoredDocument>;
  /**
   * Merges `state`, the stored state and the logged updates of `name` up to and including
   * `throughSeq` into the new stored state and deletes those updates, all or nothing. Merging
   * what it deletes (rather than trusting `state` to hold it) is what lets several instances, each
   * with updates the other has not seen yet, compact one shared log without losing any.
   */
  compact(name: string, state: Uint8Array, throughSeq: number): Promise<void>;
}

/**
 * Applies a stored document to `ydoc` in one transaction: far faster than one transaction per
 * update for a long log (50,000 keystrokes: 95 ms against 217 ms), and than `Y.mergeUpdates`,
 * which grows worse than linearly with the number of updates (60 s for the same log).
 */
export function applyStored(ydoc: Y.Doc, stored: StoredDocument, origin?: unknown): void {
  ydoc.transact(() => {
    if (stored.state) Y.applyUpdate(ydoc, stored.state);
    for (const update of stored.updates) Y.applyUpdate(ydoc, update);
  }, origin);
}

/** The whole stored document as one update, or null if nothing is stored. */
export function mergeStored(stored: StoredDocument): Uint8Array | null {
  if (stored.updates.length === 0) return stored.state;
  // No garbage collection: the merged state keeps every deleted item the live document keeps.
  const ydoc = new Y.Doc({ gc: false });
  try {
    applyStored(ydoc, stored);
    return Y.encodeStateAsUpdate(ydoc);
  } finally {
    ydoc.destroy();
  }
}
