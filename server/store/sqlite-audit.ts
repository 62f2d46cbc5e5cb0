import type Database from 'better-sqlite3';

/**
 * AUDIT1: the audit log: who opened a document, created it, read it over the API, annotated it over
 * the API, sent, claimed, completed, failed, accepted, discarded or reverted its runs or undid a
 * discard, whose lease ran out, and which tokens were revoked. One row per event (a connection is
 * one row when it opens, never one per message; API reads one row per token, document and hour,
 * AUDIT3). Entries of no document (the revocation of a token good for every document) belong to
 * every document's log.
 */

export const auditActions = [
  'doc.created',
  'doc.opened',
  'doc.read',
  'doc.trashed',
  'doc.restored',
  'doc.duplicated',
  'annotation.created',
  'run.sent',
  'run.claimed',
  'run.completed',
  'run.failed',
  'run.cancelled',
  'run.accepted',
  'run.discarded',
  'run.reverted',
  'run.discard-undone',
  'run.revert-undone',
  'run.item-accepted',
  'run.item-discarded',
  'run.variant-chosen',
  'run.lease-expired',
  'token.revoked',
  'invite.created',
  'invite.revoked',
  'invite.joined',
  'person.removed',
  'version.named',
  'version.restored',
] as const;
export type AuditAction = (typeof auditActions)[number];

export interface AuditActor {
  id: string;
  name: string;
  role: string;
}

export interface AuditEvent {
  action: AuditAction;
  /** The document, or null for an event of every document. */
  docId: string | null;
  actor: AuditActor;
  runId?: string;
  /** The token id an event is about (`token.revoked`). */
  tokenId?: string;
  /** Milliseconds since the epoch; now when absent. */
  at?: number;
}

export interface AuditEntry {
  /** Increasing with every entry: the cursor of `before`. */
  id: number;
  at: number;
  action: AuditAction;
  actor: AuditActor;
  runId?: string;
  tokenId?: string;
}

export interface AuditLog {
  record(event: AuditEvent): Promise<void>;
  /**
   * Records `event` unless the log holds an entry of the same action, document, actor and token
   * at `since` or later; resolves with whether it wrote one (AUDIT3's coalesced reads).
   */
  recordUnlessSince(event: AuditEvent, since: number): Promise<boolean>;
  /** The entries of `docId`, newest first, with ids below `before` when given; at most `limit`. */
  list(docId: string, page: { before?: number; limit: number }): Promise<AuditEntry[]>;
}

const schema = `
CREATE TABLE IF NOT EXISTS audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  doc_id TEXT,
  action TEXT NOT NULL,
  actor_id TEXT NOT NULL,
  actor_name TEXT NOT NULL,
  actor_role TEXT NOT NULL,
  run_id TEXT,
  token_id TEXT
);
CREATE INDEX IF NOT EXISTS audit_log_by_doc ON audit_log (doc_id, id);
`;

interface AuditRow {
  id: number;
  at: number;
  action: AuditAction;
  actor_id: string;
  actor_name: string;
  actor_role: string;
  run_id: string | null;
  token_id: string | null;
}

export function sqliteAuditLog(db: Database.Database): AuditLog {
  db.exec(schema);
  const insert = db.prepare(
    `INSERT INTO audit_log (at, doc_id, action, actor_id, actor_name, actor_role, run_id, token_id)
     VALUES (@at, @docId, @action, @actorId, @actorName, @actorRole, @runId, @tokenId)`,
  );
  const select = db.prepare<{ docId: string; before: number; limit: number }, AuditRow>(
    `SELECT * FROM audit_log WHERE (doc_id = @docId OR doc_id IS NULL) AND id < @before ORDER BY id DESC LIMIT @limit`,
  );
  const recent = db.prepare<{ docId: string | null; action: string; actorId: string; tokenId: string | null; since: number }, { id: number }>(
    `SELECT id FROM audit_log WHERE doc_id IS @docId AND action = @action AND actor_id = @actorId AND token_id IS @tokenId AND at >= @since
     ORDER BY id DESC LIMIT 1`,
  );
  const recordUnlessSince = db.transaction((event: AuditEvent, since: number): boolean => {
    const params = { docId: event.docId, action: event.action, actorId: event.actor.id, tokenId: event.tokenId ?? null, since };
    if (recent.get(params)) return false;
    insertEvent(event);
    return true;
  });
  const insertEvent = (event: AuditEvent) =>
    insert.run({
      at: event.at ?? Date.now(),
      docId: event.docId,
      action: event.action,
      actorId: event.actor.id,
      actorName: event.actor.name,
      actorRole: event.actor.role,
      runId: event.runId ?? null,
      tokenId: event.tokenId ?? null,
    });
  return {
    async record(event) {
      insertEvent(event);
    },
    async recordUnlessSince(event, since) {
      return recordUnlessSince(event, since);
    },
    async list(docId, page) {
      return select.all({ docId, before: page.before ?? Number.MAX_SAFE_INTEGER, limit: page.limit }).map(toEntry);
    },
  };
}

function toEntry(row: AuditRow): AuditEntry {
  const entry: AuditEntry = {
    id: row.id,
    at: row.at,
    action: row.action,
    actor: { id: row.actor_id, name: row.actor_name, role: row.actor_role },
  };
  if (row.run_id !== null) entry.runId = row.run_id;
  if (row.token_id !== null) entry.tokenId = row.token_id;
  return entry;
}
