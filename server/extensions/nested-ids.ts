import type { afterLoadDocumentPayload, Extension } from '@hocuspocus/server';
import { parseDocName } from '../../shared/model/doc-layout.ts';
import { giveNestedIds } from '../../shared/model/nested-ids.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';

/**
 * Gives the nested blocks of a text written before they had ids (list items, blocks inside an
 * item or a quote) their ids once the text is loaded (OP12), before any peer or agent reads
 * it: the ids `GET /api/docs/:id` already showed for them, so that annotations and ops can
 * name them. A server write (logged like any other); a text that needs none writes nothing.
 * Every instance and editor derives the same ids, so two that migrate the same text at once
 * write the same values.
 */
export class NestedIds implements Extension {
  extensionName = 'TandemNestedIds';
  priority = extensionPriority.nestedIds;

  async afterLoadDocument({ documentName, document }: afterLoadDocumentPayload): Promise<void> {
    if (parseDocName(documentName)?.part !== 'text') return;
    giveNestedIds(document, serverOrigin);
  }
}
