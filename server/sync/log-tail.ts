import type { Document } from '@hocuspocus/server';
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

/** What both persistence extensions are given: the store's update log and where its failures go. */
export interface PersistenceOptions<Log> {
  log: Log;
  onError: (error: unknown) => void;
  /** When to compact without waiting for the debounced store; `defaultCompactionLimits` if left out. */
  limits?: CompactionLimits;
  fresh?: FreshStates;
}

/** What a loaded document has logged since its last compaction, as both persistence extensions count it. */
export interface LogTail {
  lastSeq: number;
  updates: number;
  bytes: number;
  compactionScheduled: boolean;
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
  };
}

/**
 * Once the tail passes a limit, compacts the document on a later turn (encoding the whole state
 * inside an update's event would delay that update's acknowledgement), under its save mutex.
 */
export function compactWhenFull(document: Document, tail: LogTail, limits: CompactionLimits, compact: () => Promise<void>, onError: (error: unknown) => void): void {
  if (tail.compactionScheduled || (tail.updates < limits.updates && tail.bytes < limits.bytes)) return;
  tail.compactionScheduled = true;
  setImmediate(() => {
    document.saveMutex
      .runExclusive(compact)
      .catch(onError)
      .finally(() => (tail.compactionScheduled = false));
  });
}
