import type { afterUnloadDocumentPayload, Extension, onCreateDocumentPayload } from '@hocuspocus/server';
import { parseDocName } from '../../shared/model/doc-layout.ts';
import type { RunScopes } from '../runs/run-scopes.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';

/**
 * Gives each text document (`<id>`) a garbage collector that keeps what its open runs deleted
 * (server/runs/run-scopes.ts), so that Discard can bring it back, also after a restart (REV4); the
 * rest is collected as usual. Notes and runs documents keep Hocuspocus's defaults. When a text
 * document unloads, the discards made on it can no longer be undone (REV9).
 *
 * Hocuspocus 4.7 merges the `onCreateDocument` answer of its extensions into the Y.Doc options,
 * the last answer winning: no other extension answers it.
 */
export class RunGc implements Extension {
  extensionName = 'TandemRunGc';
  priority = extensionPriority.runGc;

  constructor(private readonly scopes: RunScopes) {}

  async onCreateDocument({ documentName }: onCreateDocumentPayload) {
    const target = parseDocName(documentName);
    if (target?.part !== 'text') return undefined;
    return { gc: true, gcFilter: await this.scopes.gcFilter(target.docId) };
  }

  async afterUnloadDocument({ documentName }: afterUnloadDocumentPayload) {
    const target = parseDocName(documentName);
    if (target?.part === 'text') this.scopes.closeRedo(target.docId);
  }
}
