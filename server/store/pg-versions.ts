import type pg from 'pg';
import { packState, unpackState, type VersionBook } from './version-book.ts';
import { toStoredVersion } from './sqlite-versions.ts';

/** The versions of each document over PostgreSQL (migration step 11), as sqlite-versions.ts describes them. */
export const pgVersionsSchema = `
CREATE TABLE doc_versions (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  doc_id TEXT NOT NULL,
  name TEXT NOT NULL,
  reason TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  by_name TEXT NOT NULL,
  state BYTEA NOT NULL,
  snapshot BYTEA NOT NULL,
  markdown TEXT
);
CREATE INDEX doc_versions_by_doc ON doc_versions (doc_id, seq);
`;

export function pgVersionBook(pool: pg.Pool): VersionBook {
  return {
    async add(version) {
      await pool.query(
        `INSERT INTO doc_versions (id, doc_id, name, reason, created_at, by_name, state, snapshot) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [version.id, version.docId, version.name, version.reason, version.createdAt, version.byName, packState(version.state), Buffer.from(version.snapshot)],
      );
    },
    async list(docId) {
      const { rows } = await pool.query(
        'SELECT id, doc_id, name, reason, created_at, by_name FROM doc_versions WHERE doc_id = $1 ORDER BY seq DESC',
        [docId],
      );
      return rows.map(toStoredVersion);
    },
    async state(docId, versionId) {
      const { rows } = await pool.query<{ state: Buffer }>('SELECT state FROM doc_versions WHERE doc_id = $1 AND id = $2', [docId, versionId]);
      return rows[0] ? unpackState(rows[0].state) : null;
    },
    async markdown(docId, versionId) {
      const { rows } = await pool.query<{ markdown: string | null }>('SELECT markdown FROM doc_versions WHERE doc_id = $1 AND id = $2', [docId, versionId]);
      return rows[0]?.markdown ?? null;
    },
    async keepMarkdown(docId, versionId, markdown) {
      await pool.query('UPDATE doc_versions SET markdown = $3 WHERE doc_id = $1 AND id = $2', [docId, versionId, markdown]);
    },
    async latestSnapshot(docId) {
      const { rows } = await pool.query<{ snapshot: Buffer }>('SELECT snapshot FROM doc_versions WHERE doc_id = $1 ORDER BY seq DESC LIMIT 1', [docId]);
      return rows[0] ? new Uint8Array(rows[0].snapshot) : null;
    },
    async remove(docId, versionIds) {
      if (versionIds.length > 0) await pool.query('DELETE FROM doc_versions WHERE doc_id = $1 AND id = ANY($2::text[])', [docId, versionIds]);
    },
  };
}
