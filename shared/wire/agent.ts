import * as v from 'valibot';
import { BlockView, ElementView } from './docs.ts';
import { jsonObject } from './parse.ts';
import { RunItemView } from './runs.ts';

/**
 * The agent routes' bodies and answers (docs/api.md, "Agent routes"), read the same way by the HTTP
 * routes and the stateless messages. The ops themselves are the applier's to read
 * (shared/applier/ops.ts), so that one parser answers for them.
 */

const maxKeyLength = 200;
const maxSummaryLength = 10_000;
const maxReasonLength = 2_000;

const notAnObject = 'The body must be a JSON object.';

export const Lease = v.object({ expiresAt: v.string() });

/** One entry of `GET /api/agent/runs?state=queued`. */
export const QueuedRun = v.object({
  runId: v.string(),
  docId: v.string(),
  items: v.array(RunItemView),
  createdAt: v.string(),
});
export type QueuedRun = v.InferOutput<typeof QueuedRun>;

export const QueuedRunList = v.array(QueuedRun);

/** The answer of a claim: the run, its lease, and the document's blocks as the agent must read them. */
export const ClaimedRun = v.object({
  ...QueuedRun.entries,
  lease: Lease,
  document: v.object({ blocks: v.array(BlockView), html: v.optional(v.string()), elements: v.optional(v.array(ElementView)) }),
});
export type ClaimedRun = v.InferOutput<typeof ClaimedRun>;

export const HeartbeatAnswer = v.object({ lease: Lease });
export type HeartbeatAnswer = v.InferOutput<typeof HeartbeatAnswer>;

/** `POST …/ops`: a batch, retried with the same key; `ops` is read by the applier. */
export const OpsBody = jsonObject(
  v.object({
    idempotencyKey: v.pipe(
      v.string(`"idempotencyKey" must be a string of 1 to ${maxKeyLength} characters, the same when a batch is retried.`),
      v.minLength(1, `"idempotencyKey" must be a string of 1 to ${maxKeyLength} characters, the same when a batch is retried.`),
      v.maxLength(maxKeyLength, `"idempotencyKey" must be a string of 1 to ${maxKeyLength} characters, the same when a batch is retried.`),
    ),
    ops: v.unknown(),
  }),
  notAnObject,
);
export type OpsBody = v.InferOutput<typeof OpsBody>;

export const OpsAnswer = v.object({ applied: v.number() });
export type OpsAnswer = v.InferOutput<typeof OpsAnswer>;

/** What an agent says of an instruction it did not change. */
const refusalMessage = `Each refusal must be {instructionId, reason} with a reason of 1 to ${maxReasonLength} characters.`;
export const Refusal = jsonObject(
  v.object({
    instructionId: v.string(refusalMessage),
    reason: v.pipe(
      v.string(refusalMessage),
      v.check((reason) => reason.trim() !== '', refusalMessage),
      v.maxLength(maxReasonLength, refusalMessage),
    ),
  }),
  refusalMessage,
);
export type Refusal = v.InferOutput<typeof Refusal>;

const summaryMessage = `"summary" must be a string of at most ${maxSummaryLength} characters.`;

/** `POST …/complete`: `{summary?, refusals?}`; an empty body is `{}`. */
export const CompleteBody = v.optional(
  jsonObject(
    v.object({
      summary: v.optional(v.nullable(v.pipe(v.string(summaryMessage), v.maxLength(maxSummaryLength, summaryMessage))), null),
      refusals: v.optional(v.array(Refusal, '"refusals" must be a list of {instructionId, reason}.'), []),
    }),
    notAnObject,
  ),
  { summary: null, refusals: [] },
);
export type CompleteBody = v.InferOutput<typeof CompleteBody>;

const failMessage = `"message" must say why the run failed, in 1 to ${maxReasonLength} characters.`;

/** `POST …/fail`: `{message}`. */
export const FailBody = jsonObject(
  v.object({
    message: v.pipe(
      v.string(failMessage),
      v.check((message) => message.trim() !== '', failMessage),
      v.maxLength(maxReasonLength, failMessage),
    ),
  }),
  notAnObject,
);
export type FailBody = v.InferOutput<typeof FailBody>;

/** The answer of complete and fail: the run's new state. */
export const RunStateAnswer = v.object({ state: v.picklist(['review', 'failed']) });
export type RunStateAnswer = v.InferOutput<typeof RunStateAnswer>;

/** `GET /api/agent/runs?state=queued[&wait=S]`: the query, as its parameters' values. */
export const QueuedQuery = v.object({
  state: v.literal('queued', 'Ask for "?state=queued": agents list the runs they may claim.'),
  wait: v.optional(
    v.pipe(
      v.string(),
      v.transform((wait) => (wait === '' ? 0 : Number(wait))),
      v.number('"wait" is a number of seconds from 0 to 30.'),
      v.finite('"wait" is a number of seconds from 0 to 30.'),
      v.minValue(0, '"wait" is a number of seconds from 0 to 30.'),
      v.maxValue(30, '"wait" is a number of seconds from 0 to 30.'),
    ),
    '',
  ),
});
