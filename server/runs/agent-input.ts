import { CompleteBody, FailBody, OpsBody, QueuedQuery } from '../../shared/wire/agent.ts';
import { readInput } from '../read-input.ts';
import { ActivityBody } from '../../shared/wire/activity.ts';

/**
 * The agent requests' inputs, read from untrusted JSON with the wire schemas of
 * shared/wire/agent.ts, the same way for both channels (the HTTP routes and the stateless
 * messages). Each throws Rejection 422 `INVALID_BODY`.
 */

export function parseOpsInput(body: unknown): OpsBody {
  return readInput(OpsBody, body);
}

export function parseCompleteInput(body: unknown): CompleteBody {
  return readInput(CompleteBody, body);
}

export function parseActivityInput(body: unknown): ActivityBody {
  return readInput(ActivityBody, body);
}

export function parseFailInput(body: unknown): FailBody {
  return readInput(FailBody, body);
}

/** The seconds of `wait` in `GET /api/agent/runs?state=queued&wait=S` (0 without it). */
export function parseWaitSeconds(state: string | null, wait: string | null): number {
  return readInput(QueuedQuery, { state: state ?? undefined, wait: wait ?? undefined }).wait;
}
