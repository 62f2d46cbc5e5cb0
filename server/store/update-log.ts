import * as Y from 'yjs';
import { parseDocName } from '../../shared/model/doc-layout.ts';
import { inspectUpdate, type ShapeRule } from '../sync/update-shape.ts';

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
 * into the document state (docs/architecture.md "Durability", rules DUR1–DUR5 and SCALE2 in
 * shared/PROTOCOL.md). SQLite (sqlite-update-log.ts) and PostgreSQL (pg-update-log.ts) implement
 * it; server/sync/persistence.ts is its one user on a live server.
 *
 * Every method is asynchronous: an append resolves once its update is on disk. A store that can
 * also write inside the Y.Doc's `update` event offers `inline` appends besides (see InlineAppends).
 */
export interface UpdateLog {
  /** Appends one update of `name`; resolves, once it is on disk, to its sequence number, larger than every earlier one of `name`. */
  append(name: string, update: Uint8Array): Promise<number>;
  read(name: string): Promise<StoredDocument>;
  /**
   * Makes the stored state of `name` one that holds `state` and every logged update up to and
   * including `throughSeq`, and deletes those updates, all or nothing; updates logged after
   * `throughSeq` stay. `state` holds every update this process logged up to `throughSeq`. A log
   * that several instances share merges the stored state and the updates it deletes into the new
   * state, `state`'s copy of an item winning (PostgreSQL: another instance's update, or one
   * appended but not yet applied here, is never lost, and what `state` collected stays
   * collected); a log that one process owns writes `state` as it is (SQLite).
   */
  compact(name: string, state: Uint8Array, throughSeq: number): Promise<void>;
  /** The same appends, on disk when they return; absent where the store writes asynchronously only (PostgreSQL). */
  readonly inline?: InlineAppends;
}

/**
 * Appends that are on disk when they return, or throw (SQLite). Hocuspocus applies a client's
 * update and sends the acknowledgement (its SyncStatus message) in one synchronous stretch; the
 * only code that runs between the two is the Y.Doc's `update` event, so with these an update is
 * either on disk when that event returns or its socket's frames are held until it is (the turn's
 * group commit, server/sync/group-commit.ts, server/sync/outbox.ts), and a server-side write is
 * on disk when its `transact` returns. Without them, the persistence appends a client's update
 * before Hocuspocus applies it (server/sync/append-before-apply.ts).
 */
export interface InlineAppends {
  /** As UpdateLog's `append`, done when it returns. */
  append(name: string, update: Uint8Array): number;
  /** Appends each entry, in order, in one transaction: all or nothing (one commit for many updates). Returns their sequence numbers, in the same order. */
  appendAll(entries: readonly { name: string; update: Uint8Array }[]): number[];
}

/** An update log with inline appends: SQLite's. */
export interface InlineUpdateLog extends UpdateLog {
  readonly inline: InlineAppends;
}

/** What a load left out of a stored document because Yjs could not safely read it (SHAPE5). */
export interface LeftOut {
  /** The Hocuspocus document. */
  name: string;
  /** Structs left out (written as deleted items or garbage), and stored entries left out whole (they do not decode). */
  structs: number;
  entries: number;
  /** The first rule they broke, and why. */
  rule: ShapeRule;
  message: string;
}

export interface ApplyStoredOptions {
  origin?: unknown;
  /** The Hocuspocus document's name, for `onLeftOut`. */
  name?: string;
  /** Told what was left out, once the document is applied; not called when nothing was. */
  onLeftOut?(leftOut: LeftOut): void;
}

/**
 * Applies a stored document to `ydoc` in one transaction: far faster than one transaction per
 * update for a long log (50,000 keystrokes: 95 ms against 217 ms), and than `Y.mergeUpdates`,
 * which grows worse than linearly with the number of updates (60 s for the same log).
 *
 * [SHAPE5] Each stored entry is read for shape first (server/sync/update-shape.ts), against what is
 * applied before it: what Yjs cannot safely read or write back (a value stored before the server
 * checked shapes: too deep or too large, a subdocument, types nested too deep) is applied as
 * deleted items or garbage of the same length, so everything after it still applies, and an
 * entry that does not decode at all is left out. The document so loads, without that part, and
 * `onLeftOut` hears of it. Content under a top-level type the layout does not name stays when it
 * is readable (SHAPE1 refuses new updates only): a load drops nothing it can read.
 */
export function applyStored(ydoc: Y.Doc, stored: StoredDocument, options: ApplyStoredOptions = {}): void {
  let leftOut: LeftOut | null = null;
  const apply = (entry: Uint8Array) => {
    const report = inspectUpdate(entry, ydoc, null);
    const readable = report.readable();
    if (report.problem) {
      leftOut ??= { name: options.name ?? '', structs: 0, entries: 0, ...report.problem };
      if (readable) leftOut.structs += report.dropped;
      else leftOut.entries += 1;
    }
    if (readable) Y.applyUpdate(ydoc, readable);
  };
  ydoc.transact(() => {
    if (stored.state) apply(stored.state);
    for (const update of stored.updates) apply(update);
  }, options.origin);
  if (leftOut) options.onLeftOut?.(leftOut);
}

/** What a load left out, in words: `"NAME" without 1 unreadable item ([SHAPE2] …)`. */
export function describeLeftOut({ name, structs, entries, rule, message }: LeftOut): string {
  const what = [structs > 0 ? `${structs} unreadable item${structs === 1 ? '' : 's'}` : '', entries > 0 ? `${entries} stored entr${entries === 1 ? 'y' : 'ies'} that do not decode` : '']
    .filter((part) => part !== '')
    .join(' and ');
  return `"${name}" without ${what} ([${rule}] ${message})`;
}

/** The line the server logs when it loads a document without part of what is stored. */
export function loadedWithout(leftOut: LeftOut): string {
  const docId = parseDocName(leftOut.name)?.docId ?? leftOut.name;
  return `Loaded ${describeLeftOut(leftOut)}; \`npx tandem repair ${docId}\` stores it so.`;
}

/** Read, never written: what a stored state is read against when nothing comes before it. */
const emptyDoc = new Y.Doc();

/** The whole stored document as one update, or null if nothing is stored; without what SHAPE5 leaves out. */
export function mergeStored(stored: StoredDocument, options: Omit<ApplyStoredOptions, 'origin'> = {}): Uint8Array | null {
  if (stored.updates.length === 0 && (stored.state === null || inspectUpdate(stored.state, emptyDoc, null).problem === null)) return stored.state;
  // No garbage collection: the merged state keeps every deleted item the live document keeps.
  const ydoc = new Y.Doc({ gc: false });
  try {
    applyStored(ydoc, stored, options);
    return Y.encodeStateAsUpdate(ydoc);
  } finally {
    ydoc.destroy();
  }
}
