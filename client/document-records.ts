import type * as Y from 'yjs';
import { readAnnotations, type Annotation } from '../shared/notes/annotations.ts';
import { readRunRecords, type RunRecord } from '../shared/protocol/run-record.ts';

/**
 * What the page reads from and writes to a document's records — its annotations (`<id>/notes`)
 * and runs (`<id>/runs`) — and where the annotations sit in its text: the record parsers and
 * writers, the anchors. Seeing and typing in the text need none of it, so it is a chunk of its
 * own that a document's page starts loading when it opens (`loadDocumentRecords`,
 * client/later-elements.ts); until it arrives the page shows no annotation and no run.
 */

export { AnnotationActions } from './annotation-actions.ts';
export { AnnotationPlacer } from './annotation-placer.ts';
export { readNotApplied } from './not-applied.ts';

/** Every readable annotation (records that do not parse are skipped). */
export function readNotes(notesYdoc: Y.Doc): readonly Annotation[] {
  return readAnnotations(notesYdoc).annotations;
}

/** Every readable run, newest first (records that do not parse are skipped). */
export function readRuns(runsYdoc: Y.Doc): RunRecord[] {
  return readRunRecords(runsYdoc).runs;
}
