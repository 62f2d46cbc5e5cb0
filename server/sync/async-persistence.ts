import * as Y from 'yjs';
import { messageYjsSyncStep2, messageYjsUpdate } from 'y-protocols/sync';
import type {
  afterHandleMessagePayload,
  beforeSyncPayload,
  Connection,
  beforeUnloadDocumentPayload,
  Document,
  Extension,
  onLoadDocumentPayload,
  onStoreDocumentPayload,
} from '@hocuspocus/server';
import { isTransactionOrigin } from '@hocuspocus/server';
import type { AsyncUpdateLog } from '../store/update-log.ts';
import { compactWhenFull, defaultCompactionLimits, loadStored, type CompactionLimits, type FreshStates, type LogTail, type PersistenceOptions } from './log-tail.ts';
import { Outbox } from './outbox.ts';
import { extensionPriority } from './extension-priorities.ts';

/** Hocuspocus's "reconnect and sync afresh": the provider sends its update again on a new socket. */
const resetCode = 4205;

/** A client's update whose append waits for the write-back the server makes once it is applied (NOTES13). */
interface HeldForWriteBack {
  connection: Connection;
  outbox: Outbox;
  /** The client's update, then every server write made to the document until its message is handled. */
  updates: Uint8Array[];
  /** Settles the promise `settled()` waits for. */
  done(): void;
}

interface AsyncPersistenceOptions extends PersistenceOptions<AsyncUpdateLog> {
  /** Told when an update NotesGuard judged was refused by the log, so that it forgets the judgement. */
  onUnjudged?: (document: Document) => void;
  /** Says whether the server will write back after applying the message `connection` is sending (NotesGuard). */
  writeBacks?: { pendingFor(connection: Connection): boolean };
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
 *   applied here, is never lost;
 * - a client's update after which the server must write an instruction's state back (NOTES13,
 *   `writeBacks`) is not appended before it is applied: its socket's Outbox holds the
 *   acknowledgement, and once the message is handled the update and the write-back (with any
 *   other server write of that stretch) are appended as one entry. Apart, a crash between the
 *   two appends would leave the forged state in the log without its write-back.
 */
export class AsyncPersistence implements Extension {
  extensionName = 'TandemAsyncPersistence';
  priority = extensionPriority.asyncPersistence;

  private readonly tails = new WeakMap<Document, LogTail>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly heldForWriteBack = new WeakMap<Document, HeldForWriteBack>();
  private failure: unknown = null;

  private readonly log: AsyncUpdateLog;
  private readonly onError: (error: unknown) => void;
  private readonly onUnjudged: (document: Document) => void;
  private readonly limits: CompactionLimits;
  private readonly fresh?: FreshStates;
  private readonly writeBacks?: AsyncPersistenceOptions['writeBacks'];

  constructor(options: AsyncPersistenceOptions) {
    this.log = options.log;
    this.onError = options.onError;
    this.onUnjudged = options.onUnjudged ?? (() => {});
    this.limits = options.limits ?? defaultCompactionLimits;
    this.fresh = options.fresh;
    this.writeBacks = options.writeBacks;
  }

  async onLoadDocument({ documentName, document }: onLoadDocumentPayload): Promise<void> {
    const tail = loadStored(document, await this.log.read(documentName), { onError: this.onError, fresh: this.fresh });
    this.tails.set(document, tail);
    document.on('update', (update: Uint8Array, origin: unknown) => this.appendServerWrite(document, tail, update, origin));
  }

  async beforeSync({ type, payload, document, connection }: beforeSyncPayload): Promise<void> {
    if ((type !== messageYjsSyncStep2 && type !== messageYjsUpdate) || connection.readOnly || isEmptyUpdate(payload)) return;
    const tail = this.tails.get(document);
    // Never acknowledge what was not logged: a document this extension did not load takes no update.
    if (!tail) throw new Error(`${document.name} was not loaded through the update log`);
    if (this.writeBacks?.pendingFor(connection) && connection.webSocket instanceof Outbox && !this.heldForWriteBack.has(document)) {
      this.holdForWriteBack(document, connection, connection.webSocket, payload);
      return;
    }
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

  /** Appends a held client update with the write-back made after it, as one entry, then lets its acknowledgement go. */
  async afterHandleMessage({ connection, document }: afterHandleMessagePayload): Promise<void> {
    const held = this.heldForWriteBack.get(document);
    const tail = this.tails.get(document);
    if (!held || held.connection !== connection || !tail) return;
    this.heldForWriteBack.delete(document);
    const update = held.updates.length === 1 ? held.updates[0] : Y.mergeUpdates(held.updates);
    try {
      this.logged(document, tail, await this.log.append(document.name, update), update.byteLength);
      held.outbox.release();
    } catch (error) {
      // Applied but not logged: the next compaction writes it with the state. The client has no
      // acknowledgement and sends its update again on a new socket.
      tail.updates += 1;
      this.failure = error;
      this.onError(error);
      held.outbox.discard(resetCode, 'Update not stored');
    } finally {
      held.done();
    }
  }

  private holdForWriteBack(document: Document, connection: Connection, outbox: Outbox, update: Uint8Array): void {
    outbox.hold();
    let done = () => {};
    const settled = new Promise<void>((resolve) => (done = resolve));
    this.inFlight.add(settled);
    void settled.finally(() => this.inFlight.delete(settled));
    this.heldForWriteBack.set(document, { connection, outbox, updates: [update], done });
  }

  private appendServerWrite(document: Document, tail: LogTail, update: Uint8Array, origin: unknown): void {
    if (isTransactionOrigin(origin) && (origin.source === 'connection' || origin.source === 'redis')) return;
    const held = this.heldForWriteBack.get(document);
    if (held) {
      held.updates.push(update);
      return;
    }
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
    compactWhenFull(document, tail, this.limits, () => this.compact(document), this.onError);
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
