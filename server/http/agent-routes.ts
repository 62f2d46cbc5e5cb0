import type { IncomingMessage } from 'node:http';
import { parseWaitSeconds } from '../runs/agent-input.ts';
import type { AgentService } from '../runs/agent-service.ts';
import type { RouteHandler } from './api.ts';
import { json } from './reply.ts';
import type { Router } from './router.ts';

/** An activity report is a short line, a few counts and a name (MODEL8). */
const maxActivityBodyBytes = 4096;

/**
 * The agent routes of docs/api.md over AgentService (server/runs/agent-service.ts), which
 * checks the token's role and answers refusals with RunErrors (mapped in api.ts).
 */
export function addAgentRoutes(router: Router<RouteHandler>, agents: AgentService): void {
  router.add('GET', '/api/agent/runs', async ({ req, url, principal }) => {
    agents.mustBeAgent(principal);
    const seconds = parseWaitSeconds(url.searchParams.get('state'), url.searchParams.get('wait'));
    const gone = whenClientLeaves(req);
    try {
      // RUN7: a model agent names its model as it asks for work, so that people see it while idle.
      const model = url.searchParams.get('model')?.trim().slice(0, 200) || null;
      return json(200, await agents.queued(principal, seconds * 1000, gone.signal, model));
    } finally {
      gone.release();
    }
  });

  router.add('POST', '/api/agent/runs/:runId/claim', async ({ principal, params }) =>
    json(200, await agents.claim(principal, params.runId)),
  );

  router.add('POST', '/api/agent/runs/:runId/heartbeat', async ({ principal, params }) =>
    json(200, await agents.heartbeat(principal, params.runId)),
  );

  router.add('POST', '/api/agent/runs/:runId/ops', async ({ principal, params, body }) =>
    json(200, await agents.ops(principal, params.runId, await body())),
  );

  router.add('POST', '/api/agent/runs/:runId/activity', async ({ principal, params, body }) =>
    json(200, await agents.activity(principal, params.runId, await body({ maxBytes: maxActivityBodyBytes }))),
  );

  router.add('POST', '/api/agent/runs/:runId/complete', async ({ principal, params, body }) =>
    json(200, await agents.complete(principal, params.runId, await body({ optional: true }))),
  );

  router.add('POST', '/api/agent/runs/:runId/fail', async ({ principal, params, body }) =>
    json(200, await agents.fail(principal, params.runId, await body())),
  );
}

/** Aborts when the client closes its connection (a long poll then stops waiting). */
export function whenClientLeaves(req: IncomingMessage): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const abort = () => controller.abort();
  req.socket.once('close', abort);
  return { signal: controller.signal, release: () => req.socket.off('close', abort) };
}
