import type { Hocuspocus } from '@hocuspocus/server';
import type { Claims } from '../../shared/protocol/claims.ts';
import { isDocId } from '../../shared/model/doc-layout.ts';
import { countedTitle } from '../../shared/model/doc-title.ts';
import { maxTitleLength, trashRetentionMs } from '../../shared/protocol/limits.ts';
import { coversDoc, may, mayCreateDocs } from '../../shared/protocol/permissions.ts';
import { Rejection } from '../../shared/protocol/rejection.ts';
import { DocListQuery, type DocRestored, type DocTrashed, type TrashedDoc } from '../../shared/wire/catalogue.ts';
import type { CreatedId } from '../../shared/wire/docs.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { duplicateDoc } from '../docs/duplicate-doc.ts';
import type { DocRecord, Store } from '../store/store.ts';
import { readInput } from '../read-input.ts';
import { partNamesOf } from '../store/doc-rows.ts';
import { forbidden, notFound } from './api-error.ts';
import type { RouteHandler } from './api.ts';
import { readableDoc } from './doc-access.ts';
import { json } from './reply.ts';
import type { Router } from './router.ts';

/** The most documents a search answers. */
export const maxSearchResults = 50;

/** `GET /api/docs`'s query (shared/wire/catalogue.ts); 400 `INVALID_QUERY` naming the first problem. */
export function readListQuery(params: URLSearchParams): DocListQuery {
  const given = Object.fromEntries(['q', 'trash'].filter((name) => params.has(name)).map((name) => [name, params.getAll(name)]));
  return readInput(DocListQuery, given, { status: 400, codeOf: () => 'INVALID_QUERY' });
}

/** CAT3: the trash as the principal may see it: editors only, a `--doc` token its one document. */
export async function listTrash(store: Store, principal: Claims): Promise<TrashedDoc[]> {
  if (!may(principal.role, 'doc.trash')) throw forbidden('Only editors may see the trash.');
  return (await store.listDocs('trash'))
    .flatMap(({ deletedAt, ...record }) =>
      deletedAt !== null && coversDoc(principal, record.id)
        ? [
            {
              id: record.id,
              title: countedTitle(record.title),
              kind: record.kind,
              updatedAt: new Date(record.updatedAt).toISOString(),
              ...trashTimes(deletedAt),
            },
          ]
        : [],
    );
}

function trashTimes(deletedAt: number): { deletedAt: string; purgeAt: string } {
  return { deletedAt: new Date(deletedAt).toISOString(), purgeAt: new Date(deletedAt + trashRetentionMs).toISOString() };
}

/**
 * CAT3 and CAT4: move to the trash, restore, duplicate. Each writes its audit entry after it
 * succeeded (AUDIT1); a duplicate also writes `doc.created` on the copy.
 */
export function addCatalogueRoutes(router: Router<RouteHandler>, deps: { store: Store; hocuspocus: Hocuspocus; now?: () => number }): void {
  const { store, hocuspocus } = deps;
  const now = deps.now ?? Date.now;

  router.add('DELETE', '/api/docs/:id', async ({ principal, params }) => {
    const record = await readableDoc(store, principal, params.id);
    if (!may(principal.role, 'doc.trash')) throw forbidden('Only editors may move documents to the trash.');
    const at = now();
    // Lost to a concurrent trash: the document is in the trash either way.
    if (!(await store.trashDoc(record.id, at))) throw new Rejection(410, 'IN_TRASH', 'This document is in the trash already.');
    // Those who have it open lose it at once; the auth extension refuses them from now on.
    for (const name of partNamesOf(record.id)) hocuspocus.closeConnections(name);
    await recordAudit(store.audit, principal, 'doc.trashed', record.id);
    const answer: DocTrashed = { id: record.id, ...trashTimes(at) };
    return json(200, answer);
  });

  router.add('POST', '/api/docs/:id/restore', async ({ principal, params }) => {
    const record = await trashedDoc(store, principal, params.id);
    if (!(await store.restoreDoc(record.id, now() - trashRetentionMs))) {
      throw new Rejection(410, 'TRASH_EXPIRED', `This document was in the trash for over ${trashRetentionMs / 86_400_000} days and cannot be restored.`);
    }
    await recordAudit(store.audit, principal, 'doc.restored', record.id);
    const answer: DocRestored = { id: record.id };
    return json(200, answer);
  });

  router.add('POST', '/api/docs/:id/duplicate', async ({ principal, params }) => {
    const source = await readableDoc(store, principal, params.id);
    if (!mayCreateDocs(principal)) throw forbidden('Only editors with a token for every document may duplicate documents.');
    const copy = await duplicateDoc(store, hocuspocus, source, maxTitleLength, { subject: principal.sub, name: principal.name });
    await recordAudit(store.audit, principal, 'doc.duplicated', source.id);
    await recordAudit(store.audit, principal, 'doc.created', copy.id);
    const answer: CreatedId = { id: copy.id };
    return json(201, answer);
  });
}

/** The trashed document an editor may restore: 403 for other roles or documents, 404 for none, 409 `NOT_IN_TRASH`. */
async function trashedDoc(store: Store, principal: Claims, id: string): Promise<DocRecord> {
  if (!may(principal.role, 'doc.trash')) throw forbidden('Only editors may restore documents.');
  if (!coversDoc(principal, id)) throw forbidden('Your token is for another document.');
  const record = isDocId(id) ? await store.getDoc(id) : null;
  if (!record) throw notFound('There is no document with this id.');
  if (record.deletedAt === null) throw new Rejection(409, 'NOT_IN_TRASH', 'This document is not in the trash.');
  return record;
}
