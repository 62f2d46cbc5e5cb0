import type { SessionView } from '../../shared/wire/session.ts';
import type { RouteHandler } from './api.ts';
import { json } from './reply.ts';
import type { Router } from './router.ts';

/**
 * TOKEN6: `GET /api/session` answers whom the token signs in. The API boundary has verified it
 * (signature, expiry, revocation) before any route runs, so a refused token gets its 401 there.
 */
export function addSessionRoutes(router: Router<RouteHandler>): void {
  router.add('GET', '/api/session', async ({ principal }) => {
    const view: SessionView = { id: principal.sub, name: principal.name, role: principal.role, doc: principal.doc ?? null };
    return json(200, view);
  });
}
