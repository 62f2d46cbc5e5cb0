import type { WireError } from '../wire/errors.ts';

/**
 * The agent requests as Hocuspocus stateless messages (shared/PROTOCOL.md, AGENT1–AGENT4), and
 * their one parser. A request is a JSON string sent with `provider.sendStateless` on the
 * agent's connection to a document's text (`<id>`):
 *
 *   {type: 'claim' | 'heartbeat', requestId, runId}
 *   {type: 'ops', requestId, runId, idempotencyKey, ops}
 *   {type: 'complete', requestId, runId, summary?, refusals?: [{instructionId, reason}]}
 *   {type: 'fail', requestId, runId, message}
 *   {type: 'activity', requestId, runId, line?, usage?, model?}
 *
 * and the server answers on the same connection with one reply per request:
 *
 *   {requestId, ok: true, result}            result: what the HTTP route answers with 200
 *   {requestId, ok: false, error: {code, message, ...}}   as the HTTP route's error body
 */

export const agentRequestTypes = ['claim', 'heartbeat', 'ops', 'complete', 'fail', 'activity'] as const;
export type AgentRequestType = (typeof agentRequestTypes)[number];

export type RequestId = string | number;

export interface AgentRequest {
  type: AgentRequestType;
  requestId: RequestId;
  runId: string;
  /** The whole message: the fields of the request's body are read from it. */
  body: Record<string, unknown>;
}

export type AgentReply =
  | { requestId: RequestId | null; ok: true; result: unknown }
  | { requestId: RequestId | null; ok: false; error: WireError };

/**
 * Reads a stateless payload. Null when it is not an agent request at all (not JSON, or no
 * known `type`): other messages may share the channel. A request with a known type but without
 * a usable `requestId` or `runId` comes back as `{requestId, problem}`.
 */
export function parseAgentRequest(payload: string): AgentRequest | { requestId: RequestId | null; problem: string } | null {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const body = value as Record<string, unknown>;
  const type = body.type;
  if (!(agentRequestTypes as readonly unknown[]).includes(type)) return null;
  const requestId = isRequestId(body.requestId) ? body.requestId : null;
  if (requestId === null) return { requestId, problem: '"requestId" must be a string of 1 to 100 characters or a number.' };
  if (typeof body.runId !== 'string' || body.runId === '') return { requestId, problem: '"runId" must name a run.' };
  return { type: type as AgentRequestType, requestId, runId: body.runId, body };
}

function isRequestId(value: unknown): value is RequestId {
  return (typeof value === 'string' && value.length > 0 && value.length <= 100) || (typeof value === 'number' && Number.isFinite(value));
}
