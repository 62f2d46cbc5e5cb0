import type { Hocuspocus } from '@hocuspocus/server';
import { readAnnotations, type Annotation } from '../../shared/notes/annotations.ts';
import { resolveAnchors } from '../../shared/model/anchors.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import type { Store } from '../store/store.ts';
import { readDocState } from './read-doc.ts';

/** An annotation as `GET /api/docs/:id` lists it: the record and whether its text is still there. */
export type AnnotationView = Annotation & { status: 'attached' | 'orphaned' };

/** Every valid annotation of a document, oldest first, each resolved against the current text. */
export async function readAnnotationViews(hocuspocus: Hocuspocus, store: Store, docId: string): Promise<AnnotationView[]> {
  const annotations = await readDocState(hocuspocus, store, docName(docId, 'notes'), (ydoc) => readAnnotations(ydoc).annotations);
  if (annotations.length === 0) return [];
  const resolved = await readDocState(hocuspocus, store, docName(docId), (ydoc) =>
    resolveAnchors(
      ydoc,
      annotations.map((annotation) => annotation.anchor),
    ),
  );
  return annotations.map((annotation, index) => ({ ...annotation, status: resolved[index].status }));
}
