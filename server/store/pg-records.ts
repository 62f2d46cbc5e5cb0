import type pg from 'pg';
import type { AnnotationDocIndex } from './run-store.ts';
import type { RevocationList } from './sqlite-revocations.ts';
import type { AuditEntry, AuditLog } from './sqlite-audit.ts';

/* The small tables over PostgreSQL, as their SQLite modules describe them. */

export function pgAnnotationDocIndex(pool: pg.Pool): AnnotationDocIndex {
  return {
    async add(docId, annotationIds) {
      if (annotationIds.length === 0) return;
      await pool.query(
        'INSERT INTO annotation_docs (annotation_id, doc_id) SELECT unnest($1::text[]), $2 ON CONFLICT (annotation_id) DO NOTHING',
        [annotationIds, docId],
      );
    },
    async docOf(annotationId) {
      const { rows } = await pool.query<{ doc_id: string }>('SELECT doc_id FROM annotation_docs WHERE annotation_id = $1', [annotationId]);
      return rows[0]?.doc_id ?? null;
    },
  };
}

/**
 * Revocations. `revokedSince` pages by the identity column: a revocation that commits after
 * one with a larger number was read can be missed by that sweep, so its open connections stay
 * until they reconnect, when `isRevoked` refuses them.
 */
export function pgRevocationList(pool: pg.Pool): RevocationList {
  return {
    async revoke(jti, revokedAt) {
      const result = await pool.query('INSERT INTO revoked_tokens (jti, revoked_at) VALUES ($1, $2) ON CONFLICT (jti) DO NOTHING', [jti, revokedAt]);
      return result.rowCount === 1;
    },
    async isRevoked(jti) {
      return ((await pool.query('SELECT 1 FROM revoked_tokens WHERE jti = $1', [jti])).rowCount ?? 0) > 0;
    },
    async revokedSince(cursor) {
      const { rows } = await pool.query<{ seq: number; jti: string }>('SELECT seq, jti FROM revoked_tokens WHERE seq > $1 ORDER BY seq', [cursor]);
      return { ids: rows.map((row) => row.jti), cursor: rows.at(-1)?.seq ?? cursor };
    },
  };
}

interface AuditRow {
  id: number;
  at: number;
  action: AuditEntry['action'];
  actor_id: string;
  actor_name: string;
  actor_role: string;
  run_id: string | null;
  token_id: string | null;
}

export function pgAuditLog(pool: pg.Pool): AuditLog {
  return {
    async record(event) {
      await pool.query(
        `INSERT INTO audit_log (at, doc_id, action, actor_id, actor_name, actor_role, run_id, token_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [event.at ?? Date.now(), event.docId, event.action, event.actor.id, event.actor.name, event.actor.role, event.runId ?? null, event.tokenId ?? null],
      );
    },
    async recordUnlessSince(event, since) {
      // Two instances racing at the same moment may each write one: a duplicate, never a gap.
      const { rowCount } = await pool.query(
        `INSERT INTO audit_log (at, doc_id, action, actor_id, actor_name, actor_role, run_id, token_id)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8
         WHERE NOT EXISTS (SELECT 1 FROM audit_log WHERE doc_id IS NOT DISTINCT FROM $2 AND action = $3 AND actor_id = $4
                           AND token_id IS NOT DISTINCT FROM $8 AND at >= $9)`,
        [event.at ?? Date.now(), event.docId, event.action, event.actor.id, event.actor.name, event.actor.role, event.runId ?? null, event.tokenId ?? null, since],
      );
      return (rowCount ?? 0) > 0;
    },
    async list(docId, page) {
      const { rows } = await pool.query<AuditRow>(
        'SELECT * FROM audit_log WHERE (doc_id = $1 OR doc_id IS NULL) AND id < $2 ORDER BY id DESC LIMIT $3',
        [docId, page.before ?? Number.MAX_SAFE_INTEGER, page.limit],
      );
      return rows.map((row) => {
        const entry: AuditEntry = { id: row.id, at: row.at, action: row.action, actor: { id: row.actor_id, name: row.actor_name, role: row.actor_role } };
        if (row.run_id !== null) entry.runId = row.run_id;
        if (row.token_id !== null) entry.tokenId = row.token_id;
        return entry;
      });
    },
  };
}
