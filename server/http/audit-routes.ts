import { Rejection } from '../rejection.ts';
import { may } from '../../shared/permissions.ts';
import type { Store } from '../store/store.ts';
import { forbidden } from './api-error.ts';
import type { RouteHandler } from './api.ts';
import { readableDoc } from './doc-access.ts';
import { json } from './reply.ts';
import type { Router } from './router.ts';

export const maxAuditPage = 200;
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
    const before = positiveInteger(url.searchParams, 'before', Number.MAX_SAFE_INTEGER);
    const limit = positiveInteger(url.searchParams, 'limit', maxAuditPage) ?? defaultAuditPage;
    const entries = await store.audit.list(doc.id, { before, limit });
    return json(200, {
      entries: entries.map(({ at, ...entry }) => ({ ...entry, at: new Date(at).toISOString() })),
      next: entries.length === limit ? entries.at(-1)!.id : null,
    });
  });
}

/** The query parameter `name` as an integer 1…max, undefined when absent; 400 otherwise. */
function positiveInteger(query: URLSearchParams, name: string, max: number): number | undefined {
  const values = query.getAll(name);
  if (values.length === 0) return undefined;
  const value = values.length === 1 && /^[1-9]\d{0,15}$/.test(values[0]) ? Number(values[0]) : NaN;
  if (!(value <= max)) {
    throw new Rejection(400, 'INVALID_QUERY', `"${name}" must be one whole number from 1 to ${max}.`);
  }
  return value;
}
