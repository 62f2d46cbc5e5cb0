import type { AsideService } from '../runs/aside-service.ts';
import { AsidesQuery } from '../../shared/wire/asides.ts';
import { readInput } from '../read-input.ts';
import { whenClientLeaves } from './agent-routes.ts';
import type { RouteHandler } from './api.ts';
import { json } from './reply.ts';
import type { Router } from './router.ts';

/**
 * The routes of asides (docs/api.md, "Asides") over the AsideService: a person asks or steers
 * (`POST /api/runs/:runId/asides`, held until the agent's answer is done); the agent holding
 * the run long-polls its asides and answers each.
 */
export function addAsideRoutes(router: Router<RouteHandler>, asides: AsideService): void {
  router.add('POST', '/api/runs/:runId/asides', async ({ principal, params, body }) =>
    json(200, await asides.ask(principal, params.runId, await body())),
  );

  router.add('GET', '/api/agent/runs/:runId/asides', async ({ req, url, principal, params }) => {
    const { wait } = readInput(AsidesQuery, { wait: url.searchParams.get('wait') ?? undefined });
    const gone = whenClientLeaves(req);
    try {
      return json(200, await asides.pending(principal, params.runId, wait * 1000, gone.signal));
    } finally {
      gone.release();
    }
  });

  router.add('POST', '/api/agent/runs/:runId/asides/:asideId/answer', async ({ principal, params, body }) =>
    json(200, await asides.answer(principal, params.runId, params.asideId, await body())),
  );
}
