import { maxSourceBytes, maxTitleLength } from '../../shared/limits.ts';
import type { NewDoc } from '../docs/create-doc.ts';
import { invalidBody } from './api-error.ts';

/**
 * The document described by a `POST /api/docs` body: `{title, markdown?}` or
 * `{title, kind: "page", html}`. Throws Rejection 422 `INVALID_BODY` naming the first problem.
 */
export function parseNewDoc(body: unknown): NewDoc {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidBody('The body must be a JSON object.');
  }
  const { title, kind = 'text', markdown, html } = body as Record<string, unknown>;
  if (typeof title !== 'string') throw invalidBody('title must be a string.');
  if (title.length > maxTitleLength) throw invalidBody(`title must be at most ${maxTitleLength} characters.`);
  if (kind === 'text') {
    if (html !== undefined) throw invalidBody('html is only for documents of kind "page".');
    if (markdown !== undefined && typeof markdown !== 'string') throw invalidBody('markdown must be a string.');
    const source = markdown ?? '';
    checkSize('markdown', source);
    return { kind, title, markdown: source };
  }
  if (kind === 'page') {
    if (markdown !== undefined) throw invalidBody('A page takes html, not markdown.');
    if (typeof html !== 'string') throw invalidBody('html must be a string.');
    checkSize('html', html);
    return { kind, title, html };
  }
  throw invalidBody('kind must be "text" or "page".');
}

function checkSize(field: string, value: string): void {
  if (Buffer.byteLength(value) > maxSourceBytes) {
    throw invalidBody(`${field} must be at most ${maxSourceBytes} bytes.`);
  }
}
