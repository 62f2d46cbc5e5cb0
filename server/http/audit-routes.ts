import { AuditQuery, type AuditPage } from '../../shared/wire/audit.ts';
import { readInput } from '../read-input.ts';
import { may } from '../../shared/protocol/permissions.ts';
import type { Store } from '../store/store.ts';
import { forbidden } from './api-error.ts';
import type { RouteHandler } from './api.ts';
import { readableDoc } from './doc-access.ts';
import { json } from './reply.ts';
import type { Router } from './router.ts';

const defaultAuditPage = 50;

/**
 * AUDIT2: `GET /api/docs/:id/audit[?before=ID][&limit=N]`: the document's audit log, newest first, for
 * editors. `before` is the `id` of an entry (the page then starts below it; `next` is the value
 * for the following page, null at the end); `limit` is 1 to 200 (50 by default).
 */
export function addAuditRoutes(router: Router<RouteHandler>, store: Store): void {
  router.add('GET', '/api/docs/:id/audit', async ({ principal, params, url }) => {
    const doc = await readableDoc(store, principal, params.id);
    if (!may(principal.role, 'audit.read')) throw forbidden('Only editors may read the audit log.');
    const query = readInput(AuditQuery, queryValues(url.searchParams, ['before', 'limit']), {
      status: 400,
      codeOf: () => 'INVALID_QUERY',
    });
    const limit = query.limit ?? defaultAuditPage;
    const entries = await store.audit.list(doc.id, { before: query.before, limit });
    const page: AuditPage = {
      entries: entries.map(({ at, ...entry }) => ({ ...entry, at: new Date(at).toISOString() })),
      next: entries.length === limit ? (entries.at(-1)?.id ?? null) : null,
    };
    return json(200, page);
  });
}

/** Each of `names` given in `query` with all its values (as `getAll` reads them); absent ones left out. */
function queryValues(query: URLSearchParams, names: string[]): Record<string, string[]> {
  return Object.fromEntries(names.filter((name) => query.has(name)).map((name) => [name, query.getAll(name)]));
}
