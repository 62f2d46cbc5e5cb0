import type { DocRecord } from './store.ts';

/**
 * CAT2: the full-text index of the documents' titles and texts, kept in the store (SQLite FTS5,
 * PostgreSQL tsvector) and written when a document is created or stored, never read from the
 * Y.Docs when someone searches. A trashed document keeps its entry (a restore needs no new
 * reading) but is never found; a purge removes the entry with the document.
 */
export interface DocSearch {
  /** Puts the document's title and plain text in the index, replacing what it held. */
  index(docId: string, entry: SearchEntry): Promise<void>;
  /** The documents not in the trash matching every word (each as a word prefix), best first, at most `limit`. */
  search(words: readonly string[], limit: number): Promise<DocRecord[]>;
  /** The documents the index has no entry for (made before it existed), at most `limit`. */
  unindexed(limit: number): Promise<string[]>;
}

export interface SearchEntry {
  title: string;
  text: string;
}

/** What of a document's text is indexed, in characters: PostgreSQL's tsvector holds at most 1 MB. */
export const maxIndexedText = 200_000;

/** The most words a search takes, and the longest query. */
export const maxSearchWords = 12;
export const maxQueryLength = 200;

/**
 * The words of a search query: runs of letters and digits, lowercased, at most `maxSearchWords`.
 * Only these reach SQL (as FTS5 strings and tsquery lexemes), so no query syntax comes through.
 */
export function searchWords(query: string): string[] {
  return (query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, maxSearchWords);
}
