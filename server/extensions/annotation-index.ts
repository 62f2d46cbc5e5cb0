import type { afterLoadDocumentPayload, Extension } from '@hocuspocus/server';
import { isRecordId } from '../../shared/notes/annotations.ts';
import { notesParts, parseDocName } from '../../shared/model/doc-layout.ts';
import type { AnnotationDocIndex } from '../store/run-store.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';

/**
 * Keeps the annotation → document index current: when a `<id>/notes` document loads, indexes
 * every record it holds, then every record added to it while it stays loaded, whoever adds it
 * (a client over Yjs or the server), as part of the transaction's observers.
 */
export class AnnotationIndex implements Extension {
  extensionName = 'TandemAnnotationIndex';
  priority = extensionPriority.annotationIndex;

  constructor(private readonly index: AnnotationDocIndex, private readonly onError: (error: unknown) => void) {}

  async afterLoadDocument({ documentName, document }: afterLoadDocumentPayload): Promise<void> {
    const target = parseDocName(documentName);
    if (target?.part !== 'notes') return;
    const annotations = notesParts(document).annotations;
    annotations.observe((event) => {
      const added = [...event.changes.keys].filter(([id, change]) => change.action === 'add' && isRecordId(id)).map(([id]) => id);
      if (added.length > 0) this.index.add(target.docId, added).catch(this.onError);
    });
    await this.index.add(target.docId, [...annotations.keys()].filter(isRecordId));
  }
}
