import * as Y from 'yjs';
import { messageYjsSyncStep2, messageYjsUpdate } from 'y-protocols/sync';
import type {
  beforeSyncPayload,
  beforeUnloadDocumentPayload,
  Document,
  Extension,
  onLoadDocumentPayload,
  onStoreDocumentPayload,
} from '@hocuspocus/server';
import { isTransactionOrigin } from '@hocuspocus/server';
import { applyStored, type AsyncUpdateLog } from '../store/update-log.ts';
import { defaultCompactionLimits, withoutUpdateListeners, type CompactionLimits } from './persistence.ts';

/** Hocuspocus's "reconnect and sync afresh": the provider sends its update again on a new socket. */
const resetCode = 4205;

interface LogTail {
  lastSeq: number;
  updates: number;
  bytes: number;
  compactionScheduled: boolean;
}

/**
 * Durability over a store that writes asynchronously (PostgreSQL; SCALE2, DUR1–DUR5 in
 * shared/PROTOCOL.md). Hocuspocus applies a client's update and acknowledges it in one
 * synchronous stretch, so there is no room for an awaited write in the Y.Doc's `update` event;
 * instead:
 * - a client's update (sync step 2 or update) is appended in `beforeSync`, which Hocuspocus
 *   awaits before it applies the message: the acknowledgement follows the append. The hook must
 *   come after every hook that can refuse the message (NotesGuard), or a refused update would be
 *   in the log; when the append fails the connection is reset (the provider sends the update
 *   again) and `onUnjudged` lets NotesGuard forget what it judged;
 * - the `update` event skips what a connection sent (logged already) and what the Redis
 *   extension relays from another instance (that instance logged it), and appends every
 *   server-side write (applier, run mirror, write-backs) without waiting; `settled()` resolves
 *   once each of them is on disk, and the API awaits it before it answers;
 * - compaction merges the stored state, the live state and the log entries it deletes
 *   (AsyncUpdateLog.compact), so an entry of another instance, or one appended but not yet
 *   applied here, is never lost.
 */
export class AsyncPersistence implements Extension {
  extensionName = 'TandemAsyncPersistence';

  private readonly tails = new WeakMap<Document, LogTail>();
  private readonly inFlight = new Set<Promise<void>>();
  private failure: unknown = null;

  constructor(
    private readonly log: AsyncUpdateLog,
    private readonly onError: (error: unknown) => void,
    private readonly onUnjudged: (document: Document) => void = () => {},
    private readonly limits: CompactionLimits = defaultCompactionLimits,
    /** Told of a document loaded from its stored state alone, which a fresh peer may then be sent as it is (DUR6). */
    private readonly fresh?: { loaded(document: Document, state: Uint8Array): void },
  ) {}

  async onLoadDocument({ documentName, document }: onLoadDocumentPayload): Promise<void> {
    const stored = await this.log.read(documentName);
    // DUR3: as on SQLite, the load is no change to broadcast (or to log).
    withoutUpdateListeners(document, () => applyStored(document, stored));
    if (stored.state && stored.updates.length === 0) this.fresh?.loaded(document, stored.state);
    const tail: LogTail = {
      lastSeq: stored.lastSeq,
      updates: stored.updates.length,
      bytes: stored.updates.reduce((sum, update) => sum + update.byteLength, 0),
      compactionScheduled: false,
    };
    this.tails.set(document, tail);
    document.on('update', (update: Uint8Array, origin: unknown) => this.appendServerWrite(document, tail, update, origin));
  }

  async beforeSync({ type, payload, document, connection }: beforeSyncPayload): Promise<void> {
    if ((type !== messageYjsSyncStep2 && type !== messageYjsUpdate) || connection.readOnly || isEmptyUpdate(payload)) return;
    const tail = this.tails.get(document);
    // Never acknowledge what was not logged: a document this extension did not load takes no update.
    if (!tail) throw new Error(`${document.name} was not loaded through the update log`);
    try {
      this.logged(document, tail, await this.log.append(document.name, payload), payload.byteLength);
    } catch (error) {
      this.onUnjudged(document);
      connection.webSocket.close(resetCode, 'Update not stored');
      throw error;
    }
  }

  /** Resolves once every server-side write made so far is on disk; rejects if one could not be written. */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
    if (this.failure !== null) {
      const failure = this.failure;
      this.failure = null;
      throw failure;
    }
  }

  async onStoreDocument({ document }: onStoreDocumentPayload): Promise<void> {
    await this.compact(document);
  }

  async beforeUnloadDocument({ document }: beforeUnloadDocumentPayload): Promise<void> {
    await Promise.all([...this.inFlight]);
    const tail = this.tails.get(document);
    if (tail && tail.updates > 0) await document.saveMutex.runExclusive(() => this.compact(document));
  }

  private appendServerWrite(document: Document, tail: LogTail, update: Uint8Array, origin: unknown): void {
    if (isTransactionOrigin(origin) && (origin.source === 'connection' || origin.source === 'redis')) return;
    const write = this.log.append(document.name, update).then(
      (seq) => this.logged(document, tail, seq, update.byteLength),
      (error: unknown) => {
        // The update is applied but not logged: the next compaction writes it with the state.
        tail.updates += 1;
        this.failure = error;
        this.onError(error);
      },
    );
    this.inFlight.add(write);
    void write.finally(() => this.inFlight.delete(write));
  }

  private logged(document: Document, tail: LogTail, seq: number, bytes: number): void {
    tail.lastSeq = Math.max(tail.lastSeq, seq);
    tail.updates += 1;
    tail.bytes += bytes;
    if (tail.compactionScheduled || (tail.updates < this.limits.updates && tail.bytes < this.limits.bytes)) return;
    tail.compactionScheduled = true;
    setImmediate(() => {
      document.saveMutex
        .runExclusive(() => this.compact(document))
        .catch(this.onError)
        .finally(() => (tail.compactionScheduled = false));
    });
  }

  private async compact(document: Document): Promise<void> {
    const tail = this.tails.get(document);
    if (!tail || document.isDestroyed) return;
    const { lastSeq, updates, bytes } = tail;
    await this.log.compact(document.name, Y.encodeStateAsUpdate(document), lastSeq);
    tail.updates -= updates;
    tail.bytes -= bytes;
  }
}

/** The update of no change at all (no structs, no deletions), as an in-sync provider's sync step 2 may be. */
function isEmptyUpdate(update: Uint8Array): boolean {
  return update.byteLength === 2 && update[0] === 0 && update[1] === 0;
}
