import * as v from 'valibot';
import { jsonObject } from './parse.ts';

/** The wire forms of Send and review (`POST /api/docs/:id/runs`, `/api/runs/:runId/…`). */

export const maxDiscardReasonLength = 2000;

/** One instruction of a run as Send answers it and agents read it. */
export const RunItemView = v.object({
  instructionId: v.string(),
  blockId: v.string(),
  /** The instruction's work order at send time. */
  instruction: v.string(),
  /** The target text as it was pinned. */
  quote: v.string(),
  /** The target text at send time; null when it was deleted (RUN5). */
  currentText: v.nullable(v.string()),
  /** The target text changed between pinning and Send. */
  drifted: v.boolean(),
  /** VAR1: how many answers the instruction asks for (1 to 4); more than one asks for a `propose_variants`. */
  variantsWanted: v.number(),
});
export type RunItemView = v.InferOutput<typeof RunItemView>;

/** What an item of a stored run shows of itself on the wire: exactly the fields of RunItemView. */
export function runItemView({ instructionId, blockId, instruction, quote, currentText, drifted, variantsWanted }: RunItemView): RunItemView {
  return { instructionId, blockId, instruction, quote, currentText, drifted, variantsWanted };
}

/**
 * What the app reads of `GET /api/runs/:runId` (the run's record, shared/protocol/run-record.ts)
 * for a run the `<id>/runs` mirror no longer holds: the work order each instruction went with.
 */
export const RunWorkOrders = v.object({ runId: v.string(), items: v.array(v.object({ instructionId: v.string(), instruction: v.string() })) });
export type RunWorkOrders = v.InferOutput<typeof RunWorkOrders>;

/** The answer of `POST /api/docs/:id/runs`. */
export const SentRun = v.object({ runId: v.string(), items: v.array(RunItemView) });
export type SentRun = v.InferOutput<typeof SentRun>;

/**
 * `POST /api/runs/:runId/discard`: `{reason?}`, trimmed; a problem with `reason` is the
 * server's `INVALID_REASON`, any other `INVALID_BODY`.
 */
export const DiscardBody = jsonObject(
  v.object({
    reason: v.optional(
      v.pipe(
        v.string('The reason must be a string.'),
        v.trim(),
        v.nonEmpty('The reason must not be empty; leave it out to discard without one.'),
        v.maxLength(maxDiscardReasonLength, `The reason must be at most ${maxDiscardReasonLength} characters.`),
      ),
    ),
  }),
  'The body must be a JSON object {reason?}.',
);
export type DiscardBody = v.InferOutput<typeof DiscardBody>;

/** The answer of accept and discard; `draftIds` are the instructions a discard's reason made. */
export const RunDecision = v.object({
  state: v.picklist(['accepted', 'discarded']),
  draftIds: v.optional(v.array(v.string())),
});
export type RunDecision = v.InferOutput<typeof RunDecision>;

/** One item of a stored run on the wire (`GET /api/runs/:runId`, REV12: with its decision). */
export const RunItemRecord = v.object({
  ...RunItemView.entries,
  outcome: v.picklist(['pending', 'changed', 'refused', 'unchanged']),
  reason: v.nullable(v.string()),
  decision: v.nullable(v.picklist(['accepted', 'discarded'])),
  /** VAR1: the candidates the agent proposed, and the index of the one the text shows (null without). */
  variants: v.array(v.object({ index: v.number(), markdown: v.string() })),
  chosen: v.nullable(v.number()),
});

/** `POST /api/runs/:runId/items/:instructionId/choose`: `{variant}`, the index of a candidate (VAR2). */
export const ChooseVariantBody = jsonObject(
  v.object({
    variant: v.pipe(v.number('variant must be the index of a candidate: 0, 1, 2 or 3.'), v.integer('variant must be the index of a candidate: 0, 1, 2 or 3.')),
  }),
  'The body must be a JSON object {variant}.',
);
export type ChooseVariantBody = v.InferOutput<typeof ChooseVariantBody>;

/** The answer of choose (VAR2): the item, showing the candidate chosen. */
export const VariantChosen = v.object({ item: RunItemRecord });
export type VariantChosen = v.InferOutput<typeof VariantChosen>;

/**
 * The answer of `POST /api/runs/:runId/items/:instructionId/accept` and `/discard` (REV12): the
 * run's state after it (`review` until every item is decided) and the item, decided.
 */
export const ItemDecided = v.object({
  state: v.picklist(['review', 'accepted', 'discarded']),
  item: RunItemRecord,
  draftIds: v.optional(v.array(v.string())),
});
export type ItemDecided = v.InferOutput<typeof ItemDecided>;

/** A change Revert run left as it is, and why (REV8). */
export const NotRevertedView = v.object({
  blockId: v.string(),
  instructionId: v.string(),
  reason: v.picklist(['rewritten', 'removed']),
});

/** The answer of `POST /api/runs/:runId/revert` (REV8): the run stays `accepted`. */
/** `POST /api/runs/:runId/cancel` (RUN6). */
export const RunCancelled = v.object({ state: v.literal('cancelled') });
export type RunCancelled = v.InferOutput<typeof RunCancelled>;

export const RunReverted = v.object({ state: v.literal('accepted'), notReverted: v.array(NotRevertedView) });
export type RunReverted = v.InferOutput<typeof RunReverted>;

/** The answer of `POST /api/runs/:runId/undo-revert` (REV14). */
export const RevertUndone = v.object({ state: v.literal('accepted') });
export type RevertUndone = v.InferOutput<typeof RevertUndone>;

/** The answer of `POST /api/runs/:runId/undo-discard` (REV9). */
export const DiscardUndone = v.object({ state: v.literal('review') });
export type DiscardUndone = v.InferOutput<typeof DiscardUndone>;

/** `GET /api/runs/:runId/preview` of a page run (PAGE7): the candidate page. */
export const RunPreview = v.object({ html: v.string() });
export type RunPreview = v.InferOutput<typeof RunPreview>;
