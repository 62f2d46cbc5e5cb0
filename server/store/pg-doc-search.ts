import type pg from 'pg';
import type { DocSearch } from './doc-search.ts';
import { maxIndexedText } from './doc-search.ts';
import { docRowToRecord, type DocRow } from './doc-rows.ts';

/**
 * CAT2 over PostgreSQL: `doc_search` holds each document's title and text and a generated
 * tsvector of both (the title weighted A, the text B) under a GIN index. The `simple`
 * configuration lowercases and does not stem, as SQLite's unicode61 tokenizer does, so both
 * backends find the same documents for the same words.
 */
export function pgDocSearch(pool: pg.Pool): DocSearch {
  return {
    async index(docId, entry) {
      await pool.query(
        `INSERT INTO doc_search (doc_id, title, body, indexed_at) SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM docs WHERE id = $1)
         ON CONFLICT (doc_id) DO UPDATE SET title = excluded.title, body = excluded.body, indexed_at = excluded.indexed_at`,
        [docId, entry.title, entry.text.slice(0, maxIndexedText), Date.now()],
      );
    },
    async search(words, limit) {
      if (words.length === 0) return [];
      // Words are letters and digits only (searchWords): each a quoted lexeme matched as a prefix.
      const query = words.map((word) => `'${word}':*`).join(' & ');
      const { rows } = await pool.query<DocRow>(
        `SELECT docs.* FROM doc_search JOIN docs ON docs.id = doc_search.doc_id, to_tsquery('simple', $1) AS query
         WHERE doc_search.tsv @@ query AND docs.deleted_at IS NULL
         ORDER BY ts_rank(doc_search.tsv, query) DESC, docs.updated_at DESC, docs.id COLLATE "C"
         LIMIT $2`,
        [query, limit],
      );
      return rows.map(docRowToRecord);
    },
    async unindexed(limit) {
      const { rows } = await pool.query<{ id: string }>(
        'SELECT id FROM docs WHERE NOT EXISTS (SELECT 1 FROM doc_search WHERE doc_search.doc_id = docs.id) LIMIT $1',
        [limit],
      );
      return rows.map((row) => row.id);
    },
  };
}
