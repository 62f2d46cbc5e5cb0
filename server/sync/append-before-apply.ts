import * as Y from 'yjs';
import { messageYjsSyncStep2, messageYjsUpdate } from 'y-protocols/sync';
import type { afterHandleMessagePayload, beforeSyncPayload, Connection, Document } from '@hocuspocus/server';
import { isTransactionOrigin } from '@hocuspocus/server';
import type { UpdateLog } from '../store/update-log.ts';
import type { LogTail, LogWrites, LogWritesOptions } from './log-tail.ts';
import { Outbox } from './outbox.ts';

/** Hocuspocus's "reconnect and sync afresh": the provider sends its update again on a new socket. */
const resetCode = 4205;

/** A client's update whose append waits for the write-back the server makes once it is applied (NOTES13). */
interface HeldForWriteBack {
  connection: Connection;
  outbox: Outbox;
  /** The client's update, then every server write made to the document until its message is handled. */
  updates: Uint8Array[];
  /** Settles the promise `drained()` waits for. */
  done(): void;
}

/** Says whether the server will write back after applying the message `connection` is sending (NotesGuard). */
export interface WriteBacks {
  pendingFor(connection: Connection): boolean;
}

export interface AppendBeforeApplyOptions extends LogWritesOptions {
  log: UpdateLog;
  writeBacks?: WriteBacks;
}

/**
 * The persistence's writes over a log that appends asynchronously only (PostgreSQL; SCALE2,
 * DUR1–DUR5 in shared/PROTOCOL.md). Hocuspocus applies a client's update and acknowledges it in
 * one synchronous stretch, so there is no room for an awaited write in the Y.Doc's `update` event;
 * instead:
 * - a client's update (sync step 2 or update) is appended in `beforeSync`, which Hocuspocus
 *   awaits before it applies the message: the acknowledgement follows the append. The
 *   persistence comes after every hook that can refuse the message (NotesGuard), or a refused
 *   update would be in the log; when the append fails the connection is reset (the provider
 *   sends the update again) and `onUnjudged` lets NotesGuard forget what it judged;
 * - the `update` event skips what a connection sent (logged already) and what the Redis
 *   extension relays from another instance (that instance logged it), and appends every
 *   server-side write (applier, run mirror, write-backs) without waiting; `settled()` resolves
 *   once each of them is on disk, and the API awaits it before it answers;
 * - a client's update after which the server must write an instruction's state back (NOTES13,
 *   `writeBacks`) is not appended before it is applied: its socket's Outbox holds the
 *   acknowledgement, and once the message is handled the update and the write-back (with any
 *   other server write of that stretch) are appended as one entry. Apart, a crash between the
 *   two appends would leave the forged state in the log without its write-back.
 */
export class AppendBeforeApply implements LogWrites {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly heldForWriteBack = new WeakMap<Document, HeldForWriteBack>();
  private failure: unknown = null;

  constructor(private readonly options: AppendBeforeApplyOptions) {}

  loaded(document: Document, tail: LogTail): void {
    document.on('update', (update: Uint8Array, origin: unknown) => this.appendServerWrite(document, tail, update, origin));
  }

  async beforeSync({ type, payload, document, connection }: beforeSyncPayload, tail: LogTail | undefined): Promise<void> {
    if ((type !== messageYjsSyncStep2 && type !== messageYjsUpdate) || connection.readOnly || isEmptyUpdate(payload)) return;
    // Never acknowledge what was not logged: a document the persistence did not load takes no update.
    if (!tail) throw new Error(`${document.name} was not loaded through the update log`);
    if (this.options.writeBacks?.pendingFor(connection) && connection.webSocket instanceof Outbox && !this.heldForWriteBack.has(document)) {
      this.holdForWriteBack(document, connection, connection.webSocket, payload);
      return;
    }
    try {
      this.logged(document, tail, await this.options.log.append(document.name, payload), payload.byteLength);
    } catch (error) {
      this.options.onUnjudged(document);
      connection.webSocket.close(resetCode, 'Update not stored');
      throw error;
    }
  }

  /** Appends a held client update with the write-back made after it, as one entry, then lets its acknowledgement go. */
  async afterHandleMessage({ connection, document }: afterHandleMessagePayload, tail: LogTail | undefined): Promise<void> {
    const held = this.heldForWriteBack.get(document);
    if (!held || held.connection !== connection || !tail) return;
    this.heldForWriteBack.delete(document);
    const update = held.updates.length === 1 ? held.updates[0] : Y.mergeUpdates(held.updates);
    try {
      this.logged(document, tail, await this.options.log.append(document.name, update), update.byteLength);
      held.outbox.release();
    } catch (error) {
      // Applied but not logged: the next compaction writes it with the state. The client has no
      // acknowledgement and sends its update again on a new socket.
      tail.updates += 1;
      this.failure = error;
      this.options.onError(error);
      held.outbox.discard(resetCode, 'Update not stored');
    } finally {
      held.done();
    }
  }

  /** Nothing waits here for a later commit: each append is under way from the moment it is made. */
  commit(): void {}

  async drained(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  async settled(): Promise<void> {
    await this.drained();
    if (this.failure !== null) {
      const failure = this.failure;
      this.failure = null;
      throw failure;
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
    const write = this.options.log.append(document.name, update).then(
      (seq) => this.logged(document, tail, seq, update.byteLength),
      (error: unknown) => {
        // The update is applied but not logged: the next compaction writes it with the state.
        tail.updates += 1;
        this.failure = error;
        this.options.onError(error);
      },
    );
    this.inFlight.add(write);
    void write.finally(() => this.inFlight.delete(write));
  }

  private logged(document: Document, tail: LogTail, seq: number, bytes: number): void {
    tail.lastSeq = Math.max(tail.lastSeq, seq);
    tail.updates += 1;
    tail.bytes += bytes;
    this.options.logged(document, tail);
  }
}

/** The update of no change at all (no structs, no deletions), as an in-sync provider's sync step 2 may be. */
function isEmptyUpdate(update: Uint8Array): boolean {
  return update.byteLength === 2 && update[0] === 0 && update[1] === 0;
}
