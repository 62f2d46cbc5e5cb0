import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { NewDocRecord, SyncStore } from './store.ts';
import { docRowToRecord, partNamesOf, type DocRow } from './doc-rows.ts';
import { sqliteDocSearch } from './sqlite-doc-search.ts';
import { sqliteAssetStore } from './sqlite-assets.ts';
import { sqliteRunStore } from './sqlite-runs.ts';
import { sqliteAnnotationDocIndex } from './sqlite-annotation-docs.ts';
import { sqliteRevocationList } from './sqlite-revocations.ts';
import { sqliteInviteBook } from './sqlite-invites.ts';
import { sqliteAuthorshipBook } from './sqlite-authorship.ts';
import { sqliteVersionBook } from './sqlite-versions.ts';
import { sqliteAuditLog } from './sqlite-audit.ts';
import { memoryAsideBoard } from './aside-board.ts';
import { ensurePrivateFile, restrictFiles } from '../private-files.ts';
import { sqliteUpdateLog } from './sqlite-update-log.ts';
import { migrate } from './sqlite-migrations.ts';
import { mergeStored } from './update-log.ts';

const schema = `
CREATE TABLE IF NOT EXISTS docs (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  kind TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS documents (
  name TEXT PRIMARY KEY,
  data BLOB NOT NULL,
  updated_at INTEGER NOT NULL
);
`;

/**
 * The store in `<dataDir>/tandem.sqlite`, through one better-sqlite3 handle in WAL mode with
 * `synchronous = NORMAL`: a commit is written to the WAL file before it returns (so it survives a
 * crash or `kill -9` of the process) and synced to the disk at checkpoints (so a power loss may
 * take the last commits back, never corrupt the file). FULL would sync every commit, the update
 * log's every append, for a promise about power loss that Tandem does not make.
 */
export function openSqliteStore(dataDir: string): SyncStore {
  const file = join(dataDir, 'tandem.sqlite');
  // SQLite gives the -wal and -shm files it creates the mode of the database file.
  ensurePrivateFile(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  restrictFiles([`${file}-wal`, `${file}-shm`]);
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.exec(schema);
  try {
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  const updates = sqliteUpdateLog(db);
  const runs = sqliteRunStore(db);
  const annotationDocs = sqliteAnnotationDocIndex(db);
  const revocations = sqliteRevocationList(db);
  const audit = sqliteAuditLog(db);
  const search = sqliteDocSearch(db);
  const assets = sqliteAssetStore(db);
  const invites = sqliteInviteBook(db);
  const authorship = sqliteAuthorshipBook(db);
  const versions = sqliteVersionBook(db);

  const insertDoc = db.prepare(
    'INSERT INTO docs (id, title, kind, created_at, updated_at) VALUES (@id, @title, @kind, @createdAt, @updatedAt)',
  );
  const selectDoc = db.prepare<[string], DocRow>('SELECT * FROM docs WHERE id = ?');
  const selectDocs = db.prepare<[], DocRow>('SELECT * FROM docs WHERE deleted_at IS NULL ORDER BY updated_at DESC, created_at DESC, id');
  const selectTrash = db.prepare<[], DocRow>('SELECT * FROM docs WHERE deleted_at IS NOT NULL ORDER BY deleted_at DESC, id');
  const trashDoc = db.prepare('UPDATE docs SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL');
  const restoreDoc = db.prepare('UPDATE docs SET deleted_at = NULL WHERE id = ? AND deleted_at IS NOT NULL AND deleted_at >= ?');
  const selectExpired = db.prepare<[number], { id: string }>('SELECT id FROM docs WHERE deleted_at IS NOT NULL AND deleted_at < ?');
  const purgeDoc = db.transaction((id: string) => {
    const names = partNamesOf(id);
    const index = db.prepare<[string], { seq: number }>('SELECT seq FROM doc_index WHERE doc_id = ?').get(id);
    if (index) db.prepare('DELETE FROM doc_search WHERE rowid = ?').run(index.seq);
    db.prepare('DELETE FROM doc_index WHERE doc_id = ?').run(id);
    db.prepare('DELETE FROM runs WHERE doc_id = ?').run(id);
    db.prepare('DELETE FROM annotation_docs WHERE doc_id = ?').run(id);
    db.prepare('DELETE FROM assets WHERE doc_id = ?').run(id);
    for (const name of names) {
      db.prepare('DELETE FROM update_log WHERE name = ?').run(name);
      db.prepare('DELETE FROM documents WHERE name = ?').run(name);
    }
    db.prepare('DELETE FROM invites WHERE doc_id = ?').run(id);
    db.prepare('DELETE FROM doc_people WHERE doc_id = ?').run(id);
    db.prepare('DELETE FROM text_authors WHERE doc_id = ?').run(id);
    db.prepare('DELETE FROM doc_versions WHERE doc_id = ?').run(id);
    db.prepare('DELETE FROM docs WHERE id = ?').run(id);
  });
  const updateDoc = db.prepare('UPDATE docs SET title = @title, updated_at = @updatedAt WHERE id = @id');
  const upsertState = db.prepare(
    `INSERT INTO documents (name, data, updated_at) VALUES (@name, @data, @now)
     ON CONFLICT(name) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
  );
  const createDoc = db.transaction((record: NewDocRecord, states: ReadonlyMap<string, Uint8Array>) => {
    insertDoc.run({ id: record.id, title: record.title, kind: record.kind, createdAt: record.createdAt, updatedAt: record.updatedAt });
    for (const [name, state] of states) upsertState.run({ name, data: toBuffer(state), now: record.createdAt });
  });

  return {
    runs,
    annotationDocs,
    revocations,
    audit,
    search,
    assets,
    invites,
    authorship,
    versions,
    // One process uses a SQLite store: its asides need no table.
    asides: memoryAsideBoard(),
    agentSightings: null,
    updates,
    async createDoc(record, states) {
      createDoc(record, states);
    },
    async getDoc(id) {
      const row = selectDoc.get(id);
      return row ? docRowToRecord(row) : null;
    },
    async listDocs(where = 'live') {
      return (where === 'trash' ? selectTrash : selectDocs).all().map(docRowToRecord);
    },
    async trashDoc(id, at) {
      return trashDoc.run(at, id).changes === 1;
    },
    async restoreDoc(id, since) {
      return restoreDoc.run(id, since).changes === 1;
    },
    async purgeTrash(before) {
      const ids = selectExpired.all(before).map((row) => row.id);
      for (const id of ids) purgeDoc(id);
      return ids;
    },
    async updateDoc(id, changes) {
      updateDoc.run({ id, ...changes });
    },
    onRemoteRunChanged() {
      return () => {};
    },
    async loadState(name) {
      return mergeStored(await updates.read(name), { name });
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

/** better-sqlite3 binds Buffers, not other Uint8Arrays. */
function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
