import * as Y from 'yjs';
import type { afterLoadDocumentPayload, Extension } from '@hocuspocus/server';
import { notesParts, parseDocName } from '../../shared/model/doc-layout.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';

/**
 * [NOTES11] When a `<id>/notes` document loads, deletes whatever it holds outside the annotations
 * map: content stored under other top-level types before the notes guard refused them. The
 * garbage collector then drops it, so it is neither served to peers nor stored again.
 */
export class NotesStrays implements Extension {
  extensionName = 'TandemNotesStrays';
  priority = extensionPriority.notesStrays;

  async afterLoadDocument({ documentName, document }: afterLoadDocumentPayload): Promise<void> {
    if (parseDocName(documentName)?.part !== 'notes') return;
    deleteOutsideAnnotations(document);
  }
}

/** Deletes every item of every top-level type but the annotations map, in one server transaction. */
export function deleteOutsideAnnotations(notesYdoc: Y.Doc): void {
  const annotations: unknown = notesParts(notesYdoc).annotations;
  const strays = [...notesYdoc.share.values()].filter((type) => type !== annotations && hasContent(type));
  if (strays.length === 0) return;
  notesYdoc.transact((transaction) => {
    for (const type of strays) {
      for (let item = type._start; item !== null; item = item.right) if (!item.deleted) item.delete(transaction);
      for (const item of type._map.values()) if (!item.deleted) item.delete(transaction);
    }
  }, serverOrigin);
}

function hasContent(type: { _start: Y.Item | null; _map: Map<string, Y.Item> }): boolean {
  for (let item = type._start; item !== null; item = item.right) if (!item.deleted) return true;
  return [...type._map.values()].some((item) => !item.deleted);
}
