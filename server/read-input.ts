import type * as v from 'valibot';
import { readWire, type WireProblem } from '../shared/wire/parse.ts';
import { Rejection } from '../shared/protocol/rejection.ts';

/**
 * `value` read with a wire schema (shared/wire), or a Rejection naming the first problem: 422
 * `INVALID_BODY` unless `codeOf` names another code for the field the problem is in.
 */
export function readInput<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  options: { status?: number; codeOf?: (field: string | null) => string | undefined } = {},
): v.InferOutput<S> {
  const read = readWire(schema, value);
  if (read.ok) return read.value;
  const code = options.codeOf?.(read.problem.field) ?? 'INVALID_BODY';
  throw new Rejection(options.status ?? 422, code, describe(read.problem));
}

/** The schema's sentence, with where it applies when that is deeper than a top-level field. */
function describe(problem: WireProblem): string {
  return problem.path !== null && problem.path.includes('.') ? `${problem.message} (at ${problem.path})` : problem.message;
}
