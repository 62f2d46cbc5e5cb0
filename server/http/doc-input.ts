import { NewDocBody } from '../../shared/wire/docs.ts';
import type { NewDoc } from '../docs/create-doc.ts';
import { readInput } from '../read-input.ts';

/**
 * The document described by a `POST /api/docs` body: `{title, markdown?}` or
 * `{title, kind: "page", html}` (shared/wire/docs.ts). Throws Rejection 422 `INVALID_BODY`
 * naming the first problem.
 */
export function parseNewDoc(body: unknown): NewDoc {
  return readInput(NewDocBody, body);
}
