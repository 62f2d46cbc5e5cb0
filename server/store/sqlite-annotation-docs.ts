import type Database from 'better-sqlite3';
import type { AnnotationDocIndex } from './run-store.ts';

const schema = `
CREATE TABLE IF NOT EXISTS annotation_docs (
  annotation_id TEXT PRIMARY KEY,
  doc_id TEXT NOT NULL REFERENCES docs(id)
);
`;

/** The annotation → document index over an open better-sqlite3 handle; creates its table. */
export function sqliteAnnotationDocIndex(db: Database.Database): AnnotationDocIndex {
  db.exec(schema);
  const insert = db.prepare('INSERT OR IGNORE INTO annotation_docs (annotation_id, doc_id) VALUES (?, ?)');
  const select = db.prepare<[string], { doc_id: string }>('SELECT doc_id FROM annotation_docs WHERE annotation_id = ?');
  const addAll = db.transaction((docId: string, ids: readonly string[]) => {
    for (const id of ids) insert.run(id, docId);
  });
  return {
    async add(docId, annotationIds) {
      if (annotationIds.length > 0) addAll(docId, annotationIds);
    },
    async docOf(annotationId) {
      return select.get(annotationId)?.doc_id ?? null;
    },
  };
}
