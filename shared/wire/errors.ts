import * as v from 'valibot';

/**
 * The error envelope of every refused request: `{"error": {code, message, ...details}}`, where
 * `code` is UPPER_SNAKE and `message` a sentence for a person; details (`index`, `blockId`,
 * `runId`, `retryAfter`…) depend on the code. The HTTP API writes it, the agent client and the
 * browser app read it.
 */
export const WireError = v.looseObject({ code: v.string(), message: v.string() });
export type WireError = v.InferOutput<typeof WireError>;

export const ErrorEnvelope = v.object({ error: WireError });
export type ErrorEnvelope = v.InferOutput<typeof ErrorEnvelope>;

/** The envelope of `code` and `message` with `details` beside them. */
export function errorEnvelope(code: string, message: string, details: Record<string, unknown> = {}): ErrorEnvelope {
  return { error: { code, message, ...details } };
}
