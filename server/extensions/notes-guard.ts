import type * as Y from 'yjs';
import { messageYjsSyncStep2, messageYjsUpdate } from 'y-protocols/sync';
import type { afterHandleMessagePayload, beforeSyncPayload, Connection, Extension } from '@hocuspocus/server';
import { parseDocName } from '../../shared/model/doc-layout.ts';
import { maxBackdatingMs, type HeldInstruction, type NotesRule } from '../../shared/notes/notes-rules.ts';
import { restoreInstructionState } from '../../shared/notes/annotations-writers.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import type { AuthContext } from './auth.ts';
import { NotesShadow, type NotesLimits } from './notes-shadow.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';

/** Close codes: a refused change, a change too large, and Hocuspocus's "reconnect and sync afresh". */
const forbiddenCode = 4403;
const tooLargeCode = 4413;
const resetCode = 4205;

const closeCodes: Partial<Record<NotesRule, number>> = { NOTES12: tooLargeCode };

export interface NotesGuardOptions {
  /** When the document `docId` was created (ms since the epoch), or null if unknown: NOTES10's floor. */
  docCreatedAt(docId: string): Promise<number | null>;
  /** NOTES12's limits; the defaults of shared/notes/notes-rules.ts when absent. */
  limits?: NotesLimits;
}

/** Thrown from a hook: Hocuspocus closes the connection with `code` and sends `reason` to the provider. */
export class NotesWriteRefused extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'NotesWriteRefused';
    // Hocuspocus logs the error it closes a connection for; an expected refusal needs no trace.
    this.stack = `${this.name}: ${reason}`;
  }
}

/**
 * Enforces the notes rules (shared/notes/notes-rules.ts) on every Yjs update (sync step 2 or update)
 * that a writable connection sends to a `<id>/notes` document, before Hocuspocus applies it:
 * the update is tried on a copy of the document first (notes-shadow.ts). It runs in the
 * `beforeSync` hook, which Hocuspocus calls with the decoded sync message right before it
 * applies it, so nothing else needs to parse the Hocuspocus framing.
 *
 * Hocuspocus can only refuse a whole message, by closing that document's connection:
 * - a change the rules refuse closes the connection with 4403 and the rule in the reason; the
 *   client's replica keeps its local change and stops syncing that document until it
 *   reconnects, when the same change is refused again (acceptable for a forged write);
 * - an update that cannot be judged (it depends on changes the server has not received, e.g.
 *   after an update was lost with a dropped socket) also closes the client's whole WebSocket
 *   with 4205, so that the provider reconnects and sends everything in one sync step 2.
 *
 * A size refusal (NOTES12) closes with 4413 instead of 4403.
 *
 * [NOTES13] An editor's update that changes the state or run of an instruction the server holds
 * as sent or answered (an offline edit that raced Send, or a forgery) is let through, and the
 * server writes the held state and run back, with `serverOrigin`, in the transaction right after
 * the one that applies the update: a new set, causally after both, so every replica converges
 * on it whatever the client ids. The rest of the update (a work order edited offline) stays.
 * The values written back are those the copy held when the update was judged: a server write to
 * the same instruction landing between the judgement and the apply (only microtasks apart, as
 * Hocuspocus awaits the hook chain) would be overwritten by them.
 *
 * Keep it the last extension that refuses in `beforeSync`: the copy takes an accepted update at
 * once, so nothing after the check may stop Hocuspocus from applying it to the live document. The
 * persistence, after it, stops one only when its append fails, and then calls `forget`.
 */
export class NotesGuard implements Extension {
  extensionName = 'TandemNotesGuard';
  priority = extensionPriority.notesGuard;

  private readonly shadows = new WeakMap<Y.Doc, { shadow: NotesShadow; earliest: number }>();
  /** Write-backs waiting for the transaction that applies a connection's current message. */
  private readonly pending = new WeakMap<Connection, () => void>();

  constructor(private readonly options: NotesGuardOptions) {}

  async beforeSync({ type, payload, document, documentName, connection, context }: beforeSyncPayload<AuthContext>): Promise<void> {
    if ((type !== messageYjsSyncStep2 && type !== messageYjsUpdate) || connection.readOnly) return;
    const target = parseDocName(documentName);
    if (target?.part !== 'notes') return;
    const { principal } = context;
    let entry = this.shadows.get(document);
    if (!entry) {
      const createdAt = await this.options.docCreatedAt(target.docId);
      entry = this.shadows.get(document);
      if (!entry) {
        entry = { shadow: new NotesShadow(document, this.options.limits), earliest: (createdAt ?? 0) - maxBackdatingMs };
        this.shadows.set(document, entry);
      }
    }
    const writer = { id: principal.sub, name: principal.name, role: principal.role };
    const verdict = entry.shadow.judge(payload, writer, { now: Date.now(), earliest: entry.earliest });
    if (verdict.ok) {
      if (verdict.held.length > 0) this.writeBackAfterApply(document, connection, verdict.held);
      return;
    }
    if (verdict.kind === 'incomplete') {
      connection.webSocket.close(resetCode, 'Reset Connection');
      throw new NotesWriteRefused(resetCode, verdict.message);
    }
    const { rule, annotationId, message } = verdict.refusal;
    throw new NotesWriteRefused(closeCodes[rule] ?? forbiddenCode, `[${rule}] ${annotationId ? `${annotationId}: ` : ''}${message}`);
  }

  /**
   * Forgets the copy of `document`: an update it accepted will not be applied after all (its
   * append to the log failed), so the next update is judged on a fresh copy.
   */
  forget(document: Y.Doc): void {
    this.shadows.delete(document);
  }

  /** Whether the server will write an instruction's state back once the message `connection` is sending is applied. */
  pendingFor(connection: Connection): boolean {
    return this.pending.has(connection);
  }

  /** Drops a write-back whose update was never applied (Hocuspocus failed to apply the message). */
  async afterHandleMessage({ connection }: afterHandleMessagePayload): Promise<void> {
    this.pending.get(connection)?.();
  }

  /**
   * Hocuspocus applies the message with origin `{source: 'connection', connection}` right after
   * the hooks; the write-back runs in the transaction that follows it (Yjs runs a transaction
   * started inside `afterTransaction` next, before anything else can write).
   */
  private writeBackAfterApply(document: Y.Doc, connection: Connection, held: HeldInstruction[]): void {
    this.pending.get(connection)?.();
    const onTransaction = (transaction: Y.Transaction) => {
      const origin = transaction.origin as { connection?: unknown } | null;
      if (origin?.connection !== connection) return;
      stop();
      for (const instruction of held) restoreInstructionState(document, instruction, serverOrigin);
    };
    const stop = () => {
      document.off('afterTransaction', onTransaction);
      this.pending.delete(connection);
    };
    document.on('afterTransaction', onTransaction);
    this.pending.set(connection, stop);
  }
}
