/**
 * An expected rejection of a request: a wrong role, a wrong state, bad input. Routes and services throw it;
 * each boundary maps it once: the HTTP API (server/http/api.ts) to
 * `{"error": {code, message, ...details}}` with `status`, the stateless agent channel
 * (server/extensions/agent-stateless.ts) to `{requestId, ok: false, error}`.
 */
export class Rejection extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'Rejection';
  }
}
