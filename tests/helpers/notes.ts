import type * as Y from 'yjs';
import type { Author } from '../../shared/notes/annotations.ts';
import { createAnnotation, type NewAnnotation } from '../../shared/notes/annotations-writers.ts';
import { anchorForBlock, type Anchor } from '../../shared/model/anchors.ts';

/** A well-formed anchor that points nowhere in particular: enough for records whose pin is not under test. */
export const looseAnchor: Anchor = {
  from: { type: { client: 1, clock: 0 }, item: { client: 1, clock: 3 }, assoc: 0 },
  to: { type: { client: 1, clock: 0 }, item: { client: 1, clock: 7 }, assoc: -1 },
};

/** An anchor as records hold one (items 8 to 12 of client 1), for tests that write and read it back. */
export const sampleAnchor: Anchor = {
  from: { type: { client: 1, clock: 1 }, item: { client: 1, clock: 8 }, assoc: 0 },
  to: { type: { client: 1, clock: 1 }, item: { client: 1, clock: 12 }, assoc: -1 },
};

/** Adds an annotation to a notes Y.Doc as a client would (no origin); returns its id. */
export function addAnnotation(notesYdoc: Y.Doc, author: Author, overrides: Partial<NewAnnotation> = {}): string {
  const result = createAnnotation(notesYdoc, {
    kind: 'comment',
    anchor: looseAnchor,
    blockId: 'b1',
    quote: 'quoted',
    author,
    text: 'a note',
    now: Date.now(),
    ...overrides,
  });
  if (!result.ok) throw new Error(result.error.message);
  return result.id;
}

/** Adds an annotation pinned to the whole block `blockId` of `textYdoc`; returns its id. */
export function pinAnnotation(
  notesYdoc: Y.Doc,
  textYdoc: Y.Doc,
  blockId: string,
  author: Author,
  overrides: Partial<NewAnnotation> = {},
): string {
  const pin = anchorForBlock(textYdoc, blockId);
  if (!pin) throw new Error(`No block ${blockId}`);
  return addAnnotation(notesYdoc, author, { ...pin, ...overrides });
}
