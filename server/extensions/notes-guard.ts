import type * as Y from 'yjs';
import { messageYjsSyncStep2, messageYjsUpdate } from 'y-protocols/sync';
import type { beforeSyncPayload, Extension } from '@hocuspocus/server';
import { parseDocName } from '../../shared/doc-layout.ts';
import type { AuthContext } from './auth.ts';
import { NotesShadow } from './notes-shadow.ts';

/** Hocuspocus's close codes for a refused change and for "reconnect and sync afresh". */
const forbiddenCode = 4403;
const resetCode = 4205;

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
 * Enforces the notes rules (shared/notes-rules.ts) on every Yjs update (sync step 2 or update)
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
 * Keep it the last extension with a `beforeSync` hook: the copy takes an accepted update at
 * once, so nothing after the check may stop Hocuspocus from applying it to the live document.
 */
export class NotesGuard implements Extension {
  extensionName = 'TandemNotesGuard';

  private readonly shadows = new WeakMap<Y.Doc, NotesShadow>();

  async beforeSync({ type, payload, document, documentName, connection, context }: beforeSyncPayload<AuthContext>): Promise<void> {
    if ((type !== messageYjsSyncStep2 && type !== messageYjsUpdate) || connection.readOnly) return;
    if (parseDocName(documentName)?.part !== 'notes') return;
    const { principal } = context;
    let shadow = this.shadows.get(document);
    if (!shadow) this.shadows.set(document, (shadow = new NotesShadow(document)));
    const verdict = shadow.judge(payload, { id: principal.sub, role: principal.role });
    if (verdict.ok) return;
    if (verdict.kind === 'incomplete') {
      connection.webSocket.close(resetCode, 'Reset Connection');
      throw new NotesWriteRefused(resetCode, verdict.message);
    }
    const { rule, annotationId, message } = verdict.refusal;
    throw new NotesWriteRefused(forbiddenCode, `[${rule}] ${annotationId ? `${annotationId}: ` : ''}${message}`);
  }
}
