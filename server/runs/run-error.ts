/**
 * An expected refusal of a run operation (wrong role, wrong state, a refused batch…). The run
 * services throw it; each adapter maps it once: the HTTP API (server/http/api.ts) to
 * `{"error": {code, message, ...details}}` with `status`, the stateless agent channel
 * (server/extensions/agent-stateless.ts) to `{requestId, ok: false, error}`.
 */
export class RunError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'RunError';
  }
}

export const runNotFound = () => new RunError(404, 'NOT_FOUND', 'There is no run with this id.');

export const notClaimed = () =>
  new RunError(409, 'NOT_CLAIMED', 'This run is not claimed by you, or your lease ran out; claim a queued run first.');

export const notInReview = (state: string) =>
  new RunError(409, 'NOT_IN_REVIEW', `This run is ${state}, not in review: only a run in review can be accepted or discarded.`);

export const invalidInput = (message: string) => new RunError(422, 'INVALID_BODY', message);
