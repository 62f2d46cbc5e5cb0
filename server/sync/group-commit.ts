import type { beforeSyncPayload, Document, WebSocketLike } from '@hocuspocus/server';
import { isTransactionOrigin } from '@hocuspocus/server';
import type { InlineAppends } from '../store/update-log.ts';
import type { LogTail, LogWrites, LogWritesOptions } from './log-tail.ts';
import { Outbox } from './outbox.ts';
import { broadcastPromptly } from './prompt-broadcast.ts';

/** The close code for a client whose update could not be logged: "internal error", so it reconnects and sends it again. */
const notStoredCode = 1011;

/** A client's update applied to `document` and waiting for the turn's commit; `outbox` holds its socket's frames until then. */
interface Waiting {
  document: Document;
  tail: LogTail;
  update: Uint8Array;
  outbox: Outbox;
}

export interface GroupCommitOptions extends LogWritesOptions {
  appends: InlineAppends;
}

/**
 * The persistence's writes over a log that appends inline (SQLite; DUR1, DUR2 in shared/PROTOCOL.md):
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
 * - sends the first update of each turn to the document's peers before the append
 *   (server/sync/prompt-broadcast.ts): peers never wait for the disk, only the sender's
 *   acknowledgement does.
 */
export class GroupCommit implements LogWrites {
  /** Client updates applied in this turn, oldest first, not yet appended. */
  private waiting: Waiting[] = [];

  constructor(private readonly options: GroupCommitOptions) {}

  loaded(document: Document, tail: LogTail): void {
    // Registered first, so that it runs before the append's listener.
    broadcastPromptly(document);
    // DUR1, DUR2: every update, a client's or the server's own (applier, instruction states, run
    // mirror), is appended inside the event Yjs emits during the write, before anyone answers.
    document.on('update', (update: Uint8Array, origin: unknown) => this.append(document, tail, update, origin));
  }

  /**
   * After a failed append the update is applied but not on disk, and a client that sends it
   * again changes nothing, so no `update` event would log it. Before Hocuspocus applies (and
   * then acknowledges) any further sync message of such a document, the unlogged updates are
   * appended; if they still cannot be, the hook throws and Hocuspocus closes that connection
   * without a reply, and NotesGuard, which judged the message already, forgets its judgement.
   */
  async beforeSync({ document }: beforeSyncPayload, tail: LogTail | undefined): Promise<void> {
    if (!tail || tail.unlogged.length === 0) return;
    try {
      this.flush(document, tail);
    } catch (error) {
      this.options.onUnjudged(document);
      throw error;
    }
  }

  /**
   * Appends the waiting updates in one transaction, then releases their sockets' frames. The
   * documents' buffered broadcasts go out first: peers never wait for the disk (the prompt
   * broadcast sends only the first update of a turn at once). If the commit fails, each update
   * joins its document's unlogged ones and each of their sockets is closed with what it held.
   */
  commit(): void {
    const waiting = this.waiting;
    if (waiting.length === 0) return;
    this.waiting = [];
    for (const document of new Set(waiting.map((entry) => entry.document))) if (!document.isDestroyed) document.flush();
    const outboxes = new Set(waiting.map((entry) => entry.outbox));
    let seqs: number[];
    try {
      seqs = this.options.appends.appendAll(waiting.map(({ document, update }) => ({ name: document.name, update })));
    } catch (error) {
      for (const { tail, update } of waiting) tail.unlogged.push(update);
      for (const outbox of outboxes) closeUnstored(outbox);
      this.options.onError(error);
      return;
    }
    for (const [index, { document, tail, update }] of waiting.entries()) {
      tail.lastSeq = seqs[index];
      tail.updates += 1;
      tail.bytes += update.byteLength;
      this.options.logged(document, tail);
    }
    for (const outbox of outboxes) outbox.release();
  }

  /** Nothing is under way once `commit` has returned: every write here ends before it returns. */
  async drained(): Promise<void> {}

  /** A server-side write is on disk when its `transact` returns, and its failure thrown from there. */
  async settled(): Promise<void> {}

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
      if (this.waiting.length === 0) setImmediate(() => this.commit());
      this.waiting.push({ document, tail, update, outbox: connection.webSocket });
      return;
    }
    this.commit();
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
    this.options.logged(document, tail);
  }

  /** Appends the document's unlogged updates, oldest first; throws at the first that cannot be. */
  private flush(document: Document, tail: LogTail): void {
    while (tail.unlogged.length > 0) {
      const update = tail.unlogged[0];
      tail.lastSeq = this.options.appends.append(document.name, update);
      tail.unlogged.shift();
      tail.updates += 1;
      tail.bytes += update.byteLength;
    }
  }
}

/** Closes the socket of a client whose update could not be logged, dropping what its Outbox holds. */
function closeUnstored(socket: WebSocketLike): void {
  if (socket instanceof Outbox) socket.discard(notStoredCode, 'Update not stored');
  else socket.close(notStoredCode, 'Update not stored');
}
