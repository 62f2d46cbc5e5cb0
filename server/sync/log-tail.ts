import type { afterHandleMessagePayload, beforeSyncPayload, Document } from '@hocuspocus/server';
import { withoutUpdateListeners } from './hocuspocus-internals.ts';
import { applyStored, loadedWithout, type LeftOut, type StoredDocument } from '../store/update-log.ts';

/** When a document's log grows past either limit, it is compacted without waiting for the debounced store. */
export interface CompactionLimits {
  updates: number;
  bytes: number;
}

export const defaultCompactionLimits: CompactionLimits = { updates: 10_000, bytes: 4 * 1024 * 1024 };

/** Told of a document loaded from its stored state alone, which a fresh peer may then be sent as it is (DUR6). */
export interface FreshStates {
  loaded(document: Document, state: Uint8Array): void;
}

/** What a loaded document has logged since its last compaction, and what it could not log. */
export interface LogTail {
  lastSeq: number;
  updates: number;
  bytes: number;
  compactionScheduled: boolean;
  /**
   * Updates applied to the document whose inline append failed, oldest first (server/sync/group-commit.ts):
   * nothing of the document is acknowledged until they are on disk. A compaction covers them.
   */
  unlogged: Uint8Array[];
  /** The error of a failed inline append, to be thrown once the transaction that made the update is complete. */
  failure?: unknown;
}

/**
 * How the persistence (server/sync/persistence.ts) gets a loaded document's updates into the log:
 * the one part that depends on whether the log appends inline. server/sync/group-commit.ts
 * appends in the Y.Doc's `update` event (SQLite), server/sync/append-before-apply.ts before
 * Hocuspocus applies a client's update (PostgreSQL).
 */
export interface LogWrites {
  /** Starts logging a document whose stored state is applied: registers its `update` listener. */
  loaded(document: Document, tail: LogTail): void;
  /** Runs in the persistence's `beforeSync`, after every hook that can refuse the message. */
  beforeSync(payload: beforeSyncPayload, tail: LogTail | undefined): Promise<void>;
  /** Runs once Hocuspocus has handled a message; left out where there is nothing to do then. */
  afterHandleMessage?(payload: afterHandleMessagePayload, tail: LogTail | undefined): Promise<void>;
  /** Commits what waits for a later commit, before a compaction reads the tail or the server stops. */
  commit(): void;
  /** Resolves once every write made so far has ended, stored or failed. */
  drained(): Promise<void>;
  /** Resolves once every server-side write made so far is on disk; rejects if one could not be written. */
  settled(): Promise<void>;
}

/** What both ways of writing are given by the persistence. */
export interface LogWritesOptions {
  onError: (error: unknown) => void;
  /** Schedules a compaction of `document` once its tail passes a limit; called after each update logged. */
  logged(document: Document, tail: LogTail): void;
  /** Told when an update NotesGuard judged will not be applied after all (its append failed), so that it forgets the judgement. */
  onUnjudged(document: Document): void;
}

/**
 * Applies what is stored of a document being loaded (DUR3: no change to broadcast or log) and
 * answers the tail of its log. A load that left part of the bytes out (SHAPE5) is reported, and
 * only a complete state with nothing logged after it is what a fresh peer may be sent (DUR6).
 */
export function loadStored(document: Document, stored: StoredDocument, options: { onError: (error: unknown) => void; fresh?: FreshStates }): LogTail {
  let complete = true;
  const onLeftOut = (leftOut: LeftOut) => {
    complete = false;
    options.onError(loadedWithout(leftOut));
  };
  withoutUpdateListeners(document, () => applyStored(document, stored, { name: document.name, onLeftOut }));
  if (stored.state && stored.updates.length === 0 && complete) options.fresh?.loaded(document, stored.state);
  return {
    lastSeq: stored.lastSeq,
    updates: stored.updates.length,
    bytes: stored.updates.reduce((sum, update) => sum + update.byteLength, 0),
    compactionScheduled: false,
    unlogged: [],
  };
}

/**
 * Once the tail passes a limit, compacts the document on a later turn (encoding the whole state
 * inside an update's event would delay that update's acknowledgement), under its save mutex.
 */
export function compactWhenFull(
  document: Document,
  tail: LogTail,
  { limits, compact, onError }: { limits: CompactionLimits; compact: () => Promise<void>; onError: (error: unknown) => void },
): void {
  if (tail.compactionScheduled || (tail.updates < limits.updates && tail.bytes < limits.bytes)) return;
  tail.compactionScheduled = true;
  setImmediate(() => {
    document.saveMutex
      .runExclusive(compact)
      .catch(onError)
      .finally(() => (tail.compactionScheduled = false));
  });
}
