import * as Y from 'yjs';
import type {
  beforeSyncPayload,
  beforeUnloadDocumentPayload,
  Document,
  Extension,
  onLoadDocumentPayload,
  onStoreDocumentPayload,
  WebSocketLike,
} from '@hocuspocus/server';
import { isTransactionOrigin } from '@hocuspocus/server';
import { Outbox } from './outbox.ts';
import type { UpdateLog } from '../store/update-log.ts';
import {
  compactWhenFull,
  defaultCompactionLimits,
  loadStored,
  type CompactionLimits,
  type FreshStates,
  type LogTail as BaseTail,
  type PersistenceOptions,
} from './log-tail.ts';
import { extensionPriority } from './extension-priorities.ts';

/** The close code for a client whose update could not be logged: "internal error", so it reconnects and sends it again. */
const notStoredCode = 1011;

/** What a loaded document has logged since its last compaction, and what it could not log. */
interface LogTail extends BaseTail {
  /** Updates applied to the document whose append failed, oldest first: nothing is acknowledged until they are on disk. */
  unlogged: Uint8Array[];
  /** The error of a failed append, to be thrown once the transaction that made the update is complete. */
  failure?: unknown;
}

/** A client's update applied to `document` and waiting for the turn's commit; `outbox` holds its socket's frames until then. */
interface Waiting {
  document: Document;
  tail: LogTail;
  update: Uint8Array;
  outbox: Outbox;
}

/**
 * Makes every acknowledged update durable (rules DUR1–DUR5 in shared/PROTOCOL.md):
 * - on load, applies the stored state and then the logged updates, before it starts logging;
 * - logs each update of a loaded document from the Y.Doc's `update` event, which Yjs emits
 *   synchronously inside the `Y.applyUpdate` with which Hocuspocus applies a client's message,
 *   before Hocuspocus sends its acknowledgement (MessageReceiver: `readUpdate` then
 *   `writeSyncStatus(true)`), and inside the `transact` of every server-side write, before the
 *   route that made it answers; updates of every origin are logged, the derived `<id>/runs`
 *   mirror included, so no client ever holds a mirror state the server lost;
 * - commits the client updates of one event-loop turn together (group commit: one SQLite commit
 *   costs 15–30 µs, an insert in a commit far less), at the end of the turn or before anything
 *   else is logged or compacted; meanwhile the sending sockets' frames, their acknowledgements
 *   among them, are held in their `Outbox` (server/sync/outbox.ts), so no acknowledgement leaves
 *   before its update is on disk; a connection without an Outbox is logged at once;
 * - compacts (writes the full state and deletes the log entries it covers, in one transaction)
 *   in Hocuspocus's debounced store, when the log passes `limits`, and before the document is
 *   unloaded.
 */
export class Persistence implements Extension {
  extensionName = 'TandemPersistence';
  priority = extensionPriority.persistence;

  private readonly tails = new WeakMap<Document, LogTail>();
  /** Client updates applied in this turn, oldest first, not yet appended. */
  private waiting: Waiting[] = [];

  private readonly log: UpdateLog;
  private readonly onError: (error: unknown) => void;
  private readonly limits: CompactionLimits;
  private readonly fresh?: FreshStates;

  constructor(options: PersistenceOptions<UpdateLog>) {
    this.log = options.log;
    this.onError = options.onError;
    this.limits = options.limits ?? defaultCompactionLimits;
    this.fresh = options.fresh;
  }

  async onLoadDocument({ documentName, document }: onLoadDocumentPayload): Promise<void> {
    const stored = await this.log.read(documentName);
    const tail: LogTail = { ...loadStored(document, stored, { onError: this.onError, fresh: this.fresh }), unlogged: [] };
    this.tails.set(document, tail);
    // DUR1, DUR2: every update, a client's or the server's own (applier, instruction states, run
    // mirror), is appended inside the event Yjs emits during the write, before anyone answers.
    document.on('update', (update: Uint8Array, origin: unknown) => this.append(document, tail, update, origin));
  }

  /**
   * After a failed append the update is applied but not on disk, and a client that sends it
   * again changes nothing, so no `update` event would log it. Before Hocuspocus applies (and
   * then acknowledges) any further sync message of such a document, the unlogged updates are
   * appended; if they still cannot be, the hook throws and Hocuspocus closes that connection
   * without a reply. Keep this extension before NotesGuard, which must be the last to refuse.
   */
  async beforeSync({ document }: beforeSyncPayload): Promise<void> {
    const tail = this.tails.get(document);
    if (tail && tail.unlogged.length > 0) this.flush(document, tail);
  }

  async onStoreDocument({ document }: onStoreDocumentPayload): Promise<void> {
    await this.compact(document);
  }

  /** A failure keeps the document in memory (Hocuspocus unloads nothing whose hook threw). */
  async beforeUnloadDocument({ document }: beforeUnloadDocumentPayload): Promise<void> {
    this.commitWaiting();
    const tail = this.tails.get(document);
    if (tail && (tail.updates > 0 || tail.unlogged.length > 0)) await document.saveMutex.runExclusive(() => this.compact(document));
  }

  async onDestroy(): Promise<void> {
    this.commitWaiting();
  }

  /**
   * Runs inside the Y.Doc's `update` event. A client's update whose socket has an Outbox waits
   * for the turn's commit, its socket's frames held meanwhile (unless its document has updates
   * whose append failed: those go first, below). Any other update is appended at once, after
   * those waiting. When the append fails, the update is in memory only: the client that sent it
   * must not be acknowledged, so its socket is closed before Hocuspocus replies (a closing
   * socket gets no reply; an Outbox drops what it holds) and the provider sends the update again
   * when it reconnects (see `beforeSync`); a server-side write gets the error thrown from its
   * `transact`, once the transaction is complete.
   */
  private append(document: Document, tail: LogTail, update: Uint8Array, origin: unknown): void {
    const connection = isTransactionOrigin(origin) && origin.source === 'connection' ? origin.connection : null;
    if (connection?.webSocket instanceof Outbox && tail.unlogged.length === 0) {
      connection.webSocket.hold();
      if (this.waiting.length === 0) setImmediate(() => this.commitWaiting());
      this.waiting.push({ document, tail, update, outbox: connection.webSocket });
      return;
    }
    this.commitWaiting();
    tail.unlogged.push(update);
    try {
      this.flush(document, tail);
    } catch (error) {
      if (connection) closeUnstored(connection.webSocket);
      // Thrown once Yjs has finished the transaction, from the `transact` (or Hocuspocus's
      // `Y.applyUpdate`) that made it: an `update` listener that throws leaves the document's
      // transaction cleanup unfinished (yjs 13.6 `cleanupTransactions`), and no later transaction
      // of that document would emit `update` again, so none would be logged.
      if (tail.failure === undefined) {
        document.once('afterAllTransactions', () => {
          const failure = tail.failure;
          tail.failure = undefined;
          throw failure;
        });
      }
      tail.failure = error;
      return;
    }
    this.logged(document, tail);
  }

  /**
   * Appends the waiting updates in one transaction, then releases their sockets' frames. The
   * documents' buffered broadcasts go out first: peers never wait for the disk (PromptBroadcast
   * sends only the first update of a turn at once). If the commit fails, each update joins its
   * document's unlogged ones and each of their sockets is closed with what it held.
   */
  private commitWaiting(): void {
    const waiting = this.waiting;
    if (waiting.length === 0) return;
    this.waiting = [];
    for (const document of new Set(waiting.map((entry) => entry.document))) if (!document.isDestroyed) document.flush();
    const outboxes = new Set(waiting.map((entry) => entry.outbox));
    let seqs: number[];
    try {
      seqs = this.log.appendAll(waiting.map(({ document, update }) => ({ name: document.name, update })));
    } catch (error) {
      for (const { tail, update } of waiting) tail.unlogged.push(update);
      for (const outbox of outboxes) closeUnstored(outbox);
      this.onError(error);
      return;
    }
    for (const [index, { document, tail, update }] of waiting.entries()) {
      tail.lastSeq = seqs[index];
      tail.updates += 1;
      tail.bytes += update.byteLength;
      this.logged(document, tail);
    }
    for (const outbox of outboxes) outbox.release();
  }

  /** Schedules a compaction once the document's log passes a limit. */
  private logged(document: Document, tail: LogTail): void {
    compactWhenFull(document, tail, this.limits, () => this.compact(document), this.onError);
  }

  /** Appends the document's unlogged updates, oldest first; throws at the first that cannot be. */
  private flush(document: Document, tail: LogTail): void {
    while (tail.unlogged.length > 0) {
      const update = tail.unlogged[0];
      tail.lastSeq = this.log.append(document.name, update);
      tail.unlogged.shift();
      tail.updates += 1;
      tail.bytes += update.byteLength;
    }
  }

  /**
   * Writes the full state and deletes the log entries it covers. The sequence number is read in
   * the same synchronous stretch as the state is encoded, so every update up to it is in the
   * state and an update logged while the write is under way stays in the log.
   */
  private async compact(document: Document): Promise<void> {
    this.commitWaiting();
    const tail = this.tails.get(document);
    if (!tail || document.isDestroyed) return;
    const { lastSeq, updates, bytes } = tail;
    const covered = new Set(tail.unlogged);
    const state = Y.encodeStateAsUpdate(document);
    await this.log.compact(document.name, state, lastSeq);
    tail.updates -= updates;
    tail.bytes -= bytes;
    // The state holds the updates whose append had failed: they need no entry any more.
    tail.unlogged = tail.unlogged.filter((update) => !covered.has(update));
  }
}

/** Closes the socket of a client whose update could not be logged, dropping what its Outbox holds. */
function closeUnstored(socket: WebSocketLike): void {
  if (socket instanceof Outbox) socket.discard(notStoredCode, 'Update not stored');
  else socket.close(notStoredCode, 'Update not stored');
}

