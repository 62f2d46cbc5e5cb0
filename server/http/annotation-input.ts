import { NewAnnotationBody, NewPageAnnotationBody } from '../../shared/wire/annotations.ts';
import { readInput } from '../read-input.ts';

/**
 * The annotation described by a `POST /api/docs/:id/annotations` body,
 * `{kind: "comment" | "instruction", blockId, text}` (shared/wire/annotations.ts). Throws
 * Rejection 422 `INVALID_BODY` for a malformed body or kind, or a block id that is not a string,
 * and 422 `INVALID_TEXT` for text that is not a non-empty string of at most 10,000 characters.
 */
export function parseNewAnnotation(body: unknown): NewAnnotationBody {
  return readInput(NewAnnotationBody, body, { codeOf: (field) => (field === 'text' ? 'INVALID_TEXT' : undefined) });
}

/** The annotation of a page, `{kind, elementId, text}` (PAGE4); the same codes as above. */
export function parseNewPageAnnotation(body: unknown): NewPageAnnotationBody {
  return readInput(NewPageAnnotationBody, body, { codeOf: (field) => (field === 'text' ? 'INVALID_TEXT' : undefined) });
}
