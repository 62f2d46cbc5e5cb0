import * as v from 'valibot';

/** AUDIT2: `GET /api/docs/:id/audit[?before=ID][&limit=N]` and its answer. */

export const maxAuditPage = 200;

/** One query parameter given once, a whole number from 1 to `max`; its values as `getAll` reads them. */
const wholeNumber = (name: string, max: number) => {
  const message = `"${name}" must be one whole number from 1 to ${max}.`;
  return v.optional(
    v.pipe(
      v.array(v.string()),
      v.length(1, message),
      v.transform(([value]) => value),
      v.regex(/^[1-9]\d{0,15}$/, message),
      v.transform(Number),
      v.maxValue(max, message),
    ),
  );
};

export const AuditQuery = v.object({
  before: wholeNumber('before', Number.MAX_SAFE_INTEGER),
  limit: wholeNumber('limit', maxAuditPage),
});
export type AuditQuery = v.InferOutput<typeof AuditQuery>;

export const AuditEntry = v.object({
  /** Increasing with every entry: the cursor of `before`. */
  id: v.number(),
  /** An ISO time. */
  at: v.string(),
  action: v.string(),
  actor: v.object({ id: v.string(), name: v.string(), role: v.string() }),
  runId: v.optional(v.string()),
  tokenId: v.optional(v.string()),
});
export type AuditEntry = v.InferOutput<typeof AuditEntry>;

/** A page of the log, newest first; `next` is the `before` of the following page, null at the end. */
export const AuditPage = v.object({ entries: v.array(AuditEntry), next: v.nullable(v.number()) });
export type AuditPage = v.InferOutput<typeof AuditPage>;
