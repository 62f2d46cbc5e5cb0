import * as v from 'valibot';
import { jsonObject } from './parse.ts';

/**
 * What an agent tells about its work on a run it holds (MODEL8): `POST
 * /api/agent/runs/:runId/activity {line?, usage?, model?}`. The server keeps it on the run and
 * every reader of the run sees it (`agent`, `activity`, `usage` of the run record).
 */

export const maxActivityLineLength = 200;
export const maxModelNameLength = 200;
/** The lines a run keeps, the newest last; older ones are dropped. */
export const keptActivityLines = 50;
/** The most tokens one report may add (a bound, not a budget: it keeps the sums exact integers). */
const maxTokensPerReport = 100_000_000;

const tokenMessage = `Token counts must be whole numbers from 0 to ${maxTokensPerReport}.`;
const tokens = v.pipe(v.number(tokenMessage), v.integer(tokenMessage), v.minValue(0, tokenMessage), v.maxValue(maxTokensPerReport, tokenMessage));

/**
 * Tokens a provider reported. `inputTokens` counts every input token, cached ones included;
 * `cachedInputTokens` is the part read from the provider's prompt cache.
 */
export const TokenUsage = jsonObject(
  v.object({ inputTokens: tokens, outputTokens: tokens, cachedInputTokens: tokens }),
  '"usage" must be {inputTokens, outputTokens, cachedInputTokens}.',
);
export type TokenUsage = v.InferOutput<typeof TokenUsage>;

const lineMessage = `"line" must be a line of 1 to ${maxActivityLineLength} characters.`;
const modelMessage = `"model" must be the model's name, 1 to ${maxModelNameLength} characters.`;

/** The body of the activity route: a line of what the agent does now, tokens it used since its last report, its model. */
export const ActivityBody = jsonObject(
  v.pipe(
    v.object({
      line: v.optional(
        v.pipe(
          v.string(lineMessage),
          v.trim(),
          v.nonEmpty(lineMessage),
          v.maxLength(maxActivityLineLength, lineMessage),
          v.check((line) => !/[\n\r]/.test(line), lineMessage),
        ),
      ),
      usage: v.optional(TokenUsage),
      model: v.optional(v.pipe(v.string(modelMessage), v.trim(), v.nonEmpty(modelMessage), v.maxLength(maxModelNameLength, modelMessage))),
    }),
    v.check((body) => body.line !== undefined || body.usage !== undefined || body.model !== undefined, 'Give at least one of "line", "usage" and "model".'),
  ),
  'The body must be a JSON object {line?, usage?, model?}.',
);
export type ActivityBody = v.InferOutput<typeof ActivityBody>;

export const ActivityAnswer = v.object({ ok: v.literal(true) });
export type ActivityAnswer = v.InferOutput<typeof ActivityAnswer>;

/** Adds two usages. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
  };
}

export const noUsage: TokenUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
