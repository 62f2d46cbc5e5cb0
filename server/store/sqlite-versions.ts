import type Database from 'better-sqlite3';
import type { VersionReason } from '../../shared/wire/versions.ts';
import { packState, unpackState, type StoredVersion, type VersionBook } from './version-book.ts';

/** Migration 7's table: the versions of each document (HIST1); `seq` orders versions made in one millisecond. */
export const versionsSchema = `
CREATE TABLE doc_versions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  doc_id TEXT NOT NULL,
  name TEXT NOT NULL,
  reason TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  by_name TEXT NOT NULL,
  state BLOB NOT NULL,
  snapshot BLOB NOT NULL,
  markdown TEXT
);
CREATE INDEX doc_versions_by_doc ON doc_versions (doc_id, seq);
`;

interface VersionRow {
  id: string;
  doc_id: string;
  name: string;
  reason: string;
  created_at: number;
  by_name: string;
}

export function sqliteVersionBook(db: Database.Database): VersionBook {
  const insert = db.prepare(
    `INSERT INTO doc_versions (id, doc_id, name, reason, created_at, by_name, state, snapshot)
     VALUES (@id, @docId, @name, @reason, @createdAt, @byName, @state, @snapshot)`,
  );
  const list = db.prepare<[string], VersionRow>(
    'SELECT id, doc_id, name, reason, created_at, by_name FROM doc_versions WHERE doc_id = ? ORDER BY seq DESC',
  );
  const state = db.prepare<[string, string], { state: Buffer }>('SELECT state FROM doc_versions WHERE doc_id = ? AND id = ?');
  const latest = db.prepare<[string], { snapshot: Buffer }>('SELECT snapshot FROM doc_versions WHERE doc_id = ? ORDER BY seq DESC LIMIT 1');
  const markdown = db.prepare<[string, string], { markdown: string | null }>('SELECT markdown FROM doc_versions WHERE doc_id = ? AND id = ?');
  const keepMarkdown = db.prepare('UPDATE doc_versions SET markdown = ? WHERE doc_id = ? AND id = ?');
  const remove = db.prepare('DELETE FROM doc_versions WHERE doc_id = ? AND id IN (SELECT value FROM json_each(?))');
  return {
    async add(version) {
      insert.run({ ...version, state: packState(version.state), snapshot: Buffer.from(version.snapshot) });
    },
    async list(docId) {
      return list.all(docId).map(toStoredVersion);
    },
    async state(docId, versionId) {
      const row = state.get(docId, versionId);
      return row ? unpackState(row.state) : null;
    },
    async markdown(docId, versionId) {
      return markdown.get(docId, versionId)?.markdown ?? null;
    },
    async keepMarkdown(docId, versionId, text) {
      keepMarkdown.run(text, docId, versionId);
    },
    async latestSnapshot(docId) {
      const row = latest.get(docId);
      return row ? new Uint8Array(row.snapshot) : null;
    },
    async remove(docId, versionIds) {
      if (versionIds.length > 0) remove.run(docId, JSON.stringify(versionIds));
    },
  };
}

export function toStoredVersion(row: VersionRow): StoredVersion {
  return {
    id: row.id,
    docId: row.doc_id,
    name: row.name,
    reason: row.reason as VersionReason,
    createdAt: Number(row.created_at),
    byName: row.by_name,
  };
}
