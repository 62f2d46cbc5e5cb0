import { docName, type DocKind } from '../../shared/model/doc-layout.ts';
import type { DocRecord } from './store.ts';

/** A row of the `docs` table, as both backends return it (BIGINT times come back as numbers, pg-db.ts). */
export interface DocRow {
  id: string;
  title: string;
  kind: string;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export function docRowToRecord(row: DocRow): DocRecord {
  return {
    id: row.id,
    title: row.title,
    kind: toKind(row.kind),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at ?? null,
  };
}

function toKind(kind: string): DocKind {
  return kind === 'page' ? 'page' : 'text';
}

/** The Hocuspocus documents of one document (DOC1), whose states and logs a purge removes. */
export function partNamesOf(docId: string): string[] {
  return [docName(docId), docName(docId, 'notes'), docName(docId, 'runs')];
}
