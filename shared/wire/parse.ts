import * as v from 'valibot';

/**
 * How wire values are read with their schemas. Every schema of shared/wire gives its type
 * (`v.InferOutput`) and its validator; the readers on both sides use `readWire`, which stops at
 * the first problem and says where it is.
 */

export type WireResult<T> = { ok: true; value: T } | { ok: false; problem: WireProblem };

export interface WireProblem {
  /** The top-level field the problem is in; null for the value as a whole. */
  field: string | null;
  /** The schema's sentence for the problem. */
  message: string;
  /** Where the problem is, in dot notation (`items.0.blockId`); null for the value as a whole. */
  path: string | null;
}

export function readWire<S extends v.GenericSchema>(schema: S, value: unknown): WireResult<v.InferOutput<S>> {
  const result = v.safeParse(schema, value, { abortEarly: true });
  if (result.success) return { ok: true, value: result.output };
  const issue = result.issues[0];
  const key = issue.path?.[0]?.key;
  return {
    ok: false,
    problem: { field: typeof key === 'string' ? key : null, message: issue.message, path: v.getDotPath(issue) },
  };
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON object (never an array, which valibot's `object` would take) read with `schema`;
 * `message` is the sentence for anything else.
 */
export function jsonObject<S extends v.GenericSchema<Record<string, unknown>, unknown>>(schema: S, message: string) {
  return v.pipe(v.custom<Record<string, unknown>>(isJsonObject, message), schema);
}

/** The length of `text` in UTF-8 bytes (the limits on sources count bytes). */
export function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}
