import type Database from 'better-sqlite3';
import type { DocSearch } from './doc-search.ts';
import { maxIndexedText } from './doc-search.ts';
import { docRowToRecord, type DocRow } from './doc-rows.ts';
import { writtenRow } from './written-row.ts';

/**
 * Migration 3's tables (CAT2): `doc_index` gives each indexed document a stable integer (an
 * INTEGER PRIMARY KEY, which VACUUM keeps), the rowid of its row in the FTS5 table
 * `doc_search`, so that an entry is found and replaced by key, never by a scan.
 */
export const docSearchSchema = `
CREATE TABLE doc_index (
  seq INTEGER PRIMARY KEY,
  doc_id TEXT NOT NULL UNIQUE REFERENCES docs(id),
  indexed_at INTEGER NOT NULL
);
CREATE VIRTUAL TABLE doc_search USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 2');
`;

export function sqliteDocSearch(db: Database.Database): DocSearch {
  const upsertIndex = db.prepare<[string, number], { seq: number }>(
    `INSERT INTO doc_index (doc_id, indexed_at) VALUES (?, ?)
     ON CONFLICT (doc_id) DO UPDATE SET indexed_at = excluded.indexed_at RETURNING seq`,
  );
  const deleteEntry = db.prepare('DELETE FROM doc_search WHERE rowid = ?');
  const insertEntry = db.prepare('INSERT INTO doc_search (rowid, title, body) VALUES (?, ?, ?)');
  const index = db.transaction((docId: string, title: string, text: string) => {
    if (!db.prepare('SELECT 1 FROM docs WHERE id = ?').get(docId)) return;
    const { seq } = writtenRow(upsertIndex.get(docId, Date.now()), `the search entry of ${docId}`);
    deleteEntry.run(seq);
    insertEntry.run(seq, title, text.slice(0, maxIndexedText));
  });
  // bm25 is lower for better matches; a word in the title counts ten times one in the text.
  const search = db.prepare<[string, number], DocRow>(
    `SELECT docs.* FROM doc_search
     JOIN doc_index ON doc_index.seq = doc_search.rowid
     JOIN docs ON docs.id = doc_index.doc_id
     WHERE doc_search MATCH ? AND docs.deleted_at IS NULL
     ORDER BY bm25(doc_search, 10.0, 1.0), docs.updated_at DESC, docs.id
     LIMIT ?`,
  );
  const unindexed = db.prepare<[number], { id: string }>(
    'SELECT id FROM docs WHERE NOT EXISTS (SELECT 1 FROM doc_index WHERE doc_index.doc_id = docs.id) LIMIT ?',
  );
  return {
    async index(docId, entry) {
      index(docId, entry.title, entry.text);
    },
    async search(words, limit) {
      if (words.length === 0) return [];
      // Each word an FTS5 string (quotes doubled) and a prefix; words side by side must all match.
      const match = words.map((word) => `"${word.replaceAll('"', '""')}"*`).join(' ');
      return search.all(match, limit).map(docRowToRecord);
    },
    async unindexed(limit) {
      return unindexed.all(limit).map((row) => row.id);
    },
  };
}
