import * as v from 'valibot';
import { checkText } from '../notes/annotations.ts';
import { jsonObject } from './parse.ts';
import { maxVariants } from '../applier/ops.ts';

/**
 * `POST /api/docs/:id/annotations`: `{kind: "comment" | "instruction", blockId, text, variants?}`
 * (`variants`, instructions only: how many answers, 1 to 4, VAR1). A
 * problem with `text` is the server's `INVALID_TEXT`, any other `INVALID_BODY`.
 */
export const NewAnnotationBody = jsonObject(
  v.object({
    kind: v.picklist(['comment', 'instruction'], 'kind must be "comment" or "instruction".'),
    blockId: v.string('blockId must be a string: the id of a block of the document.'),
    text: v.custom<string>(
      (text) => checkText(text) === null,
      (issue) => `text ${checkText(issue.input)}.`,
    ),
    variants: v.optional(
      v.pipe(v.number('variants must be a whole number from 1 to 4.'), v.integer('variants must be a whole number from 1 to 4.'), v.minValue(1, 'variants must be a whole number from 1 to 4.'), v.maxValue(maxVariants, 'variants must be a whole number from 1 to 4.')),
    ),
  }),
  'The body must be a JSON object {kind, blockId, text}.',
);
export type NewAnnotationBody = v.InferOutput<typeof NewAnnotationBody>;

/** `POST /api/docs/:id/annotations` on a page (PAGE4): `{kind, elementId, text}`. */
export const NewPageAnnotationBody = jsonObject(
  v.object({
    kind: v.picklist(['comment', 'instruction'], 'kind must be "comment" or "instruction".'),
    elementId: v.string('elementId must be a string: the id of an element of the page.'),
    text: v.custom<string>(
      (text) => checkText(text) === null,
      (issue) => `text ${checkText(issue.input)}.`,
    ),
    variants: v.optional(
      v.pipe(v.number('variants must be a whole number from 1 to 4.'), v.integer('variants must be a whole number from 1 to 4.'), v.minValue(1, 'variants must be a whole number from 1 to 4.'), v.maxValue(maxVariants, 'variants must be a whole number from 1 to 4.')),
    ),
  }),
  'The body must be a JSON object {kind, elementId, text}.',
);
export type NewPageAnnotationBody = v.InferOutput<typeof NewPageAnnotationBody>;
