import { invalidInput } from './run-error.ts';

/**
 * The agent requests' inputs, read from untrusted JSON the same way for both channels (the
 * HTTP routes and the stateless messages). Each throws Rejection 422 `INVALID_BODY`. The ops
 * themselves are the applier's to read (shared/ops.ts), so that one parser answers for them.
 */

export interface OpsInput {
  idempotencyKey: string;
  ops: unknown;
}

export interface CompleteInput {
  summary: string | null;
  refusals: { instructionId: string; reason: string }[];
}

export interface FailInput {
  message: string;
}

const maxKeyLength = 200;
const maxSummaryLength = 10_000;
const maxReasonLength = 2_000;

export function parseOpsInput(body: unknown): OpsInput {
  const record = asObject(body);
  const key = record.idempotencyKey;
  if (typeof key !== 'string' || key === '' || key.length > maxKeyLength) {
    throw invalidInput(`"idempotencyKey" must be a string of 1 to ${maxKeyLength} characters, the same when a batch is retried.`);
  }
  return { idempotencyKey: key, ops: record.ops };
}

export function parseCompleteInput(body: unknown): CompleteInput {
  const record = body === undefined ? {} : asObject(body);
  const summary = record.summary ?? null;
  if (summary !== null && (typeof summary !== 'string' || summary.length > maxSummaryLength)) {
    throw invalidInput(`"summary" must be a string of at most ${maxSummaryLength} characters.`);
  }
  const refusals = record.refusals ?? [];
  if (!Array.isArray(refusals)) throw invalidInput('"refusals" must be a list of {instructionId, reason}.');
  return {
    summary,
    refusals: refusals.map((refusal, index) => {
      const { instructionId, reason } = (typeof refusal === 'object' && refusal !== null ? refusal : {}) as Record<string, unknown>;
      if (typeof instructionId !== 'string' || typeof reason !== 'string' || reason.trim() === '' || reason.length > maxReasonLength) {
        throw invalidInput(`refusals[${index}] must be {instructionId, reason} with a reason of 1 to ${maxReasonLength} characters.`);
      }
      return { instructionId, reason };
    }),
  };
}

export function parseFailInput(body: unknown): FailInput {
  const message = asObject(body).message;
  if (typeof message !== 'string' || message.trim() === '' || message.length > maxReasonLength) {
    throw invalidInput(`"message" must say why the run failed, in 1 to ${maxReasonLength} characters.`);
  }
  return { message };
}

/** The seconds of `wait` in `GET /api/agent/runs?state=queued&wait=S` (0 without it). */
export function parseWaitSeconds(state: string | null, wait: string | null): number {
  if (state !== 'queued') throw invalidInput('Ask for "?state=queued": agents list the runs they may claim.');
  if (wait === null || wait === '') return 0;
  const seconds = Number(wait);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 30) throw invalidInput('"wait" is a number of seconds from 0 to 30.');
  return seconds;
}

function asObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidInput('The body must be a JSON object.');
  return body as Record<string, unknown>;
}
