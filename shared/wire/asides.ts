import * as v from 'valibot';
import { jsonObject } from './parse.ts';

/**
 * The wire forms of asides (PROTOCOL.md ASIDE1–ASIDE9): what a person sends and gets back
 * (`POST /api/runs/:runId/asides`), what the agent holding the run reads and answers
 * (`GET /api/agent/runs/:runId/asides`, `POST …/asides/:asideId/answer`), and the record the
 * server mirrors into the document's `<id>/runs` Y.Doc for every browser.
 */

export const maxAsideTextLength = 4000;
export const maxAsideAnswerLength = 20_000;
export const maxHandoffLength = 2000;

const textMessage = `"text" must be a string of 1 to ${maxAsideTextLength} characters.`;

/** `POST /api/runs/:runId/asides`: `{text, steer?}`; `steer: true` sends the text to the run whatever it ends with. */
export const AsideBody = jsonObject(
  v.object({
    text: v.pipe(
      v.string(textMessage),
      v.check((text) => text.trim() !== '', textMessage),
      v.maxLength(maxAsideTextLength, textMessage),
    ),
    steer: v.optional(v.boolean('"steer" must be true or false.'), false),
  }),
  'The body must be a JSON object {text, steer?}.',
);
export type AsideBody = v.InferOutput<typeof AsideBody>;

/** The answer to a person: answered on the side, or gone to the run as a steer. */
export const AsideAnswer = v.variant('route', [
  v.object({ route: v.literal('side'), answer: v.string(), handoff: v.optional(v.string()) }),
  v.object({ route: v.literal('agent'), note: v.optional(v.string()) }),
]);
export type AsideAnswer = v.InferOutput<typeof AsideAnswer>;

/** A question is answered; a steer is for the run to take into account. */
export const asideKinds = ['question', 'steer'] as const;
export type AsideKind = (typeof asideKinds)[number];

const Person = v.object({ id: v.string(), name: v.string() });

/** One aside as the agent holding the run receives it. */
export const AgentAside = v.object({
  asideId: v.string(),
  kind: v.picklist(asideKinds),
  text: v.string(),
  askedBy: Person,
});
export type AgentAside = v.InferOutput<typeof AgentAside>;

export const AgentAsideList = v.array(AgentAside);

/** How many of the input tokens of an aside's model call a caching provider read from cache. */
export const AsideUsage = v.object({
  inputTokens: v.pipe(v.number(), v.integer(), v.minValue(0)),
  cachedInputTokens: v.pipe(v.number(), v.integer(), v.minValue(0)),
});
export type AsideUsage = v.InferOutput<typeof AsideUsage>;

const answerMessage = `"chunk" and "answer" are strings; an answer is at most ${maxAsideAnswerLength} characters in all.`;
const handoffMessage = `"handoff" must be a string of at most ${maxHandoffLength} characters.`;

/**
 * `POST /api/agent/runs/:runId/asides/:asideId/answer`: a `chunk` appends to the answer text,
 * `answer` replaces it; `done: true` ends it, with `route` (`side` unless said) and an optional
 * `handoff`, a suggested instruction. For a question, `route: "agent"` means the agent took the
 * text as a steer instead.
 */
export const AsideAnswerBody = jsonObject(
  v.object({
    chunk: v.optional(v.pipe(v.string(answerMessage), v.maxLength(maxAsideAnswerLength, answerMessage))),
    answer: v.optional(v.pipe(v.string(answerMessage), v.maxLength(maxAsideAnswerLength, answerMessage))),
    done: v.optional(v.boolean('"done" must be true or false.'), false),
    route: v.optional(v.picklist(['side', 'agent'], '"route" must be "side" or "agent".')),
    handoff: v.optional(v.pipe(v.string(handoffMessage), v.maxLength(maxHandoffLength, handoffMessage))),
    usage: v.optional(AsideUsage),
  }),
  'The body must be a JSON object {chunk?, answer?, done?, route?, handoff?, usage?}.',
);
export type AsideAnswerBody = v.InferOutput<typeof AsideAnswerBody>;

/** The answer of the agent's answer route: whether the person's aside is still open. */
export const AsideAnswerAck = v.object({ open: v.boolean() });
export type AsideAnswerAck = v.InferOutput<typeof AsideAnswerAck>;

/**
 * ASIDE6: one aside as every browser on the document sees it, under its id in
 * `runsParts(ydoc).asides`. `route` is null until it is known; `answer` grows while the agent
 * streams it; `done` once nothing more comes; `note` is what the server says about it (a
 * question that went to the run as a steer, and why); `cachedShare` is the share (0 to 1) of
 * the aside call's input tokens read from the provider's cache, when the agent reported it.
 */
export const AsideRecord = v.object({
  asideId: v.string(),
  runId: v.string(),
  kind: v.picklist(asideKinds),
  text: v.string(),
  askedBy: Person,
  askedAt: v.string(),
  route: v.nullable(v.picklist(['side', 'agent'])),
  answer: v.string(),
  handoff: v.nullable(v.string()),
  done: v.boolean(),
  note: v.nullable(v.string()),
  cachedShare: v.nullable(v.number()),
});
export type AsideRecord = v.InferOutput<typeof AsideRecord>;

const waitMessage = '"wait" is a number of seconds from 0 to 30.';

/** `GET /api/agent/runs/:runId/asides[?wait=S]`: the query, as its parameters' values. */
export const AsidesQuery = v.object({
  wait: v.optional(
    v.pipe(
      v.string(),
      v.transform((wait) => (wait === '' ? 0 : Number(wait))),
      v.number(waitMessage),
      v.finite(waitMessage),
      v.minValue(0, waitMessage),
      v.maxValue(30, waitMessage),
    ),
    '',
  ),
});
