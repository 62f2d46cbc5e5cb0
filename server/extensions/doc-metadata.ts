import type { Extension, onStoreDocumentPayload } from '@hocuspocus/server';
import { parseDocName } from '../../shared/model/doc-layout.ts';
import { shownTitle } from '../../shared/model/doc-title.ts';
import type { Store } from '../store/store.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';

/**
 * Keeps the catalogue in step with the text documents: when a changed text document is stored,
 * its title as shown (CAT1: the set title, else the first line) and the time of its last change are written to the catalogue.
 */
export class DocMetadata implements Extension {
  extensionName = 'TandemDocMetadata';
  priority = extensionPriority.docMetadata;

  constructor(private readonly store: Store) {}

  async onStoreDocument({ documentName, document }: onStoreDocumentPayload): Promise<void> {
    const target = parseDocName(documentName);
    if (!target || target.part !== 'text' || document.lastChangeTime === 0) return;
    await this.store.updateDoc(target.docId, {
      title: shownTitle(document),
      updatedAt: document.lastChangeTime,
    });
  }
}
