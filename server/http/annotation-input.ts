import { Rejection } from '../rejection.ts';
import { checkText, type AnnotationKind } from '../../shared/annotations.ts';
import { invalidBody } from './api-error.ts';

export interface NewAnnotationInput {
  kind: AnnotationKind;
  blockId: string;
  text: string;
}

/**
 * The annotation described by a `POST /api/docs/:id/annotations` body,
 * `{kind: "comment" | "instruction", blockId, text}`. Throws Rejection 422 `INVALID_BODY` for a
 * malformed body or kind, or a block id that is not a string, and 422 `INVALID_TEXT` for text that is not a non-empty
 * string of at most 10,000 characters.
 */
export function parseNewAnnotation(body: unknown): NewAnnotationInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidBody('The body must be a JSON object {kind, blockId, text}.');
  }
  const { kind, blockId, text } = body as Record<string, unknown>;
  if (kind !== 'comment' && kind !== 'instruction') throw invalidBody('kind must be "comment" or "instruction".');
  if (typeof blockId !== 'string') throw invalidBody('blockId must be a string: the id of a block of the document.');
  const textReason = checkText(text);
  if (textReason !== null) throw new Rejection(422, 'INVALID_TEXT', `text ${textReason}.`);
  return { kind, blockId, text: text as string };
}
