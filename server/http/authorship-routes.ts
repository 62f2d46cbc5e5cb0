import type { Hocuspocus } from '@hocuspocus/server';
import { docName, docParts } from '../../shared/model/doc-layout.ts';
import type { AuthorshipAnswer } from '../../shared/wire/authorship.ts';
import { authorResolver } from '../authorship/author-resolver.ts';
import { textPieces } from '../authorship/text-spans.ts';
import { readDocState } from '../docs/read-doc.ts';
import type { Store } from '../store/store.ts';
import type { RouteHandler } from './api.ts';
import { readableDoc } from './doc-access.ts';
import { json } from './reply.ts';
import type { Router } from './router.ts';

/** WHO1: who wrote each piece of a document's current text, for whoever may read it. */
export function addAuthorshipRoutes(router: Router<RouteHandler>, deps: { store: Store; hocuspocus: Hocuspocus }): void {
  const { store, hocuspocus } = deps;
  router.add('GET', '/api/docs/:id/authorship', async ({ principal, params }) => {
    const record = await readableDoc(store, principal, params.id);
    const pieces = await readDocState(hocuspocus, store, docName(record.id), (ydoc) => textPieces(docParts(ydoc).content));
    // Read after the text: every client id in it was claimed before its update was applied (WHO2, WHO3).
    const authors = await authorResolver(store, record.id);
    return json(200, { blocks: authors.spans(pieces) } satisfies AuthorshipAnswer);
  });
}
