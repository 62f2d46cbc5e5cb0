import * as Y from 'yjs';
import type { Extension, onStoreDocumentPayload } from '@hocuspocus/server';
import { parseDocName } from '../../shared/model/doc-layout.ts';
import { indexDocState } from '../docs/search-index.ts';
import type { Store } from '../store/store.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';

/**
 * CAT2: keeps the search index in step with the text documents. It writes when Hocuspocus stores
 * a changed document, which it does debounced (2 s after the last change, at most 10 s apart),
 * so typing never waits for the index; the text is read in the work pool. A failure is logged
 * and repaired by the next store of the document.
 */
export class SearchIndexing implements Extension {
  extensionName = 'TandemSearchIndexing';
  priority = extensionPriority.searchIndexing;

  constructor(
    private readonly store: Store,
    private readonly onError: (error: unknown) => void,
  ) {}

  async onStoreDocument({ documentName, document }: onStoreDocumentPayload): Promise<void> {
    const target = parseDocName(documentName);
    if (!target || target.part !== 'text' || document.lastChangeTime === 0) return;
    // Encoded for the index alone, so moved to the thread rather than copied.
    await indexDocState(this.store, target.docId, Y.encodeStateAsUpdate(document), true).catch(this.onError);
  }
}
