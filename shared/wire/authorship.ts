import * as v from 'valibot';

/**
 * WHO1: who wrote a piece of the current text. A person by the name in their token; an agent
 * by its name, the run and instruction it wrote for, the model it said it runs (MODEL8) and the
 * person who accepted that instruction's change, once someone did.
 */
export const TextAuthor = v.object({
  kind: v.picklist(['person', 'agent']),
  name: v.string(),
  runId: v.optional(v.string()),
  instructionId: v.optional(v.string()),
  model: v.optional(v.string()),
  acceptedBy: v.optional(v.string()),
});
export type TextAuthor = v.InferOutput<typeof TextAuthor>;

/** One piece of a block's text written by one author; a block's spans, in order, spell its text. */
export const AuthorSpan = v.object({ text: v.string(), by: TextAuthor });
export type AuthorSpan = v.InferOutput<typeof AuthorSpan>;

/** `GET /api/docs/:id/authorship`: every block holding text, in document order, depth first. */
export const AuthorshipAnswer = v.object({
  blocks: v.array(v.object({ blockId: v.string(), spans: v.array(AuthorSpan) })),
});
export type AuthorshipAnswer = v.InferOutput<typeof AuthorshipAnswer>;

/** WHO4: the author of text whose client id nobody claimed (written before authorship was kept, or by the server itself). */
export const unknownAuthor: TextAuthor = { kind: 'person', name: 'Unknown' };
