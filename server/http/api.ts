import { Rejection } from '../../shared/protocol/rejection.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Claims } from '../../shared/protocol/claims.ts';
import type { TokenVerifier } from '../auth/tokens.ts';
import { maxBodyBytes } from '../../shared/protocol/limits.ts';
import { errorEnvelope } from '../../shared/wire/errors.ts';
import type { ApiLimits } from './api-limits.ts';

import { principalOf } from './bearer.ts';
import { readJsonBody } from './body.ts';
import { json, sendReply, type Reply } from './reply.ts';
import type { Params, Router } from './router.ts';

/** What a route handler receives: the request, its verified principal and its path params. */
export interface RequestContext {
  req: IncomingMessage;
  url: URL;
  principal: Claims;
  params: Params;
  /**
   * The parsed JSON body; throws Rejection 400 or 413. `optional`: an empty body is undefined;
   * `maxBytes`: a route's own cap, below the server's.
   */
  body(options?: { optional?: boolean; maxBytes?: number }): Promise<unknown>;
}

export type RouteHandler = (ctx: RequestContext) => Promise<Reply>;

/** What a route that needs no token receives (joining by an invite, INV4): no principal. */
export type OpenRequestContext = Omit<RequestContext, 'principal'>;
export type OpenRouteHandler = (ctx: OpenRequestContext) => Promise<Reply>;

/**
 * The one boundary of the JSON API: authenticates, routes, and maps every failure to an error
 * body. ApiErrors and RunErrors (the run services' refusals) keep their status and code;
 * anything else is logged and answered with a generic 500, never with its message or stack.
 */
export function createApiHandler(options: {
  router: Router<RouteHandler>;
  /** Routes answered without a token; each limits its own callers. */
  openRoutes?: Router<OpenRouteHandler>;
  verifyToken: TokenVerifier;
  limits: ApiLimits;
  onError: (error: unknown) => void;
  /** Resolves once the server-side writes made so far are durable (SCALE2); awaited before every answer. */
  settled?: () => Promise<void>;
}) {
  return async function handleApi(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let release = () => {};
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const body = (options?: { optional?: boolean; maxBytes?: number }) =>
        readJsonBody(req, Math.min(maxBodyBytes, options?.maxBytes ?? maxBodyBytes), options?.optional);
      const open = options.openRoutes?.find(req.method ?? 'GET', url.pathname);
      let reply: Reply;
      if (open) {
        reply = await open.handler({ req, url, params: open.params, body });
      } else {
        const principal = await principalOf(req, options.verifyToken);
        release = options.limits.admit(principal, req.method ?? 'GET', url);
        const { handler, params } = options.router.match(req.method ?? 'GET', url.pathname);
        reply = await handler({ req, url, principal, params, body });
      }
      await options.settled?.();
      sendReply(res, reply);
    } catch (error) {
      if (res.headersSent) {
        res.destroy();
      } else if (error instanceof Rejection) {
        const headers: Record<string, string> = {};
        if (Array.isArray(error.details.allow)) headers.Allow = error.details.allow.join(', ');
        if (error.status === 401) headers['WWW-Authenticate'] = 'Bearer';
        if (typeof error.details.retryAfter === 'number') headers['Retry-After'] = String(error.details.retryAfter);
        const { code, message, details } = error;
        sendReply(res, json(error.status, errorEnvelope(code, message, details)), headers);
      } else {
        options.onError(error);
        sendReply(res, json(500, errorEnvelope('INTERNAL', 'Something went wrong on the server.')));
      }
    } finally {
      release();
    }
  };
}
