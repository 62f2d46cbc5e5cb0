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
    kind: toKind(row.kind, row.id),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at ?? null,
  };
}

const knownKinds: readonly string[] = ['text', 'page'] satisfies readonly DocKind[];

/** DOC5: a stored kind this server can serve; any other (a newer release's) is an error, never read as text. */
function toKind(kind: string, docId: string): DocKind {
  if (knownKinds.includes(kind)) return kind as DocKind;
  throw new Error(`Document ${docId} is of kind "${kind}", which this server does not know; a newer release of Tandem made it`);
}

/** The Hocuspocus documents of one document (DOC1), whose states and logs a purge removes. */
export function partNamesOf(docId: string): string[] {
  return [docName(docId), docName(docId, 'notes'), docName(docId, 'runs')];
}
