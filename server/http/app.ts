import type { IncomingMessage, ServerResponse } from 'node:http';
import { json, sendReply } from './reply.ts';
import { setSecurityHeaders } from './security-headers.ts';
import { currentRelease } from '../release.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * Splits HTTP requests: `/healthz`, the JSON API under `/api/`, and the app's static files.
 * Every reply, whatever answers it, carries the security headers. `/healthz` needs no token and
 * says which release answers (VER1).
 */
export function createRequestHandler(handlers: { api: Handler; static: Handler; onError: (error: unknown) => void }) {
  return function handleRequest(req: IncomingMessage, res: ServerResponse): void {
    setSecurityHeaders(res);
    const path = (req.url ?? '/').split('?')[0];
    const handler: Handler =
      path === '/healthz'
        ? async () => sendReply(res, json(200, { ok: true, ...currentRelease() }))
        : path === '/api' || path.startsWith('/api/')
          ? handlers.api
          : handlers.static;
    handler(req, res).catch((error: unknown) => {
      handlers.onError(error);
      if (!res.headersSent) sendReply(res, json(500, { error: { code: 'INTERNAL', message: 'Something went wrong on the server.' } }));
      else res.destroy();
    });
  };
}
