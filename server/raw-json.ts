import type { BlockView } from '../shared/model/doc-content.ts';

/**
 * JSON text already written (a document's blocks, kept per version by server/docs/text-views.ts),
 * which every answer written with `stringifyWithRaw` (the API's, server/http/reply.ts; the agent's
 * stateless replies, server/extensions/agent-stateless.ts) carries as it is, rather than parsing
 * it and writing it again. Anything else that serializes an answer holding one must use it too.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Blocks kept as JSON text, standing where an answer has its `blocks`. */
export function rawBlocks(json: string): BlockView[] {
  return new RawJson(json) as unknown as BlockView[];
}

/** JSON text standing where an answer has a value of type `T` (a page's elements). */
export function rawJsonAs<T>(json: string): T {
  return new RawJson(json) as unknown as T;
}

/** `JSON.stringify(value)`, with each RawJson in it written as its text. */
export function stringifyWithRaw(value: unknown): string {
  return jsonPieces(value).join('');
}

/**
 * `stringifyWithRaw(value)` in pieces, in order: the JSON written around each RawJson, and each
 * RawJson's text as it is, so that a large answer can be written out a slice at a time without
 * first being joined into one string (server/http/reply.ts).
 */
export function jsonPieces(value: unknown): string[] {
  const raws: string[] = [];
  const mark = `\u0000raw${Math.random().toString(36).slice(2)}:`;
  const text = JSON.stringify(value, (_key, item: unknown) => (item instanceof RawJson ? `${mark}${raws.push(item.text) - 1}` : item));
  if (raws.length === 0) return [text];
  // Split on each placeholder; the captured index lands at the odd places.
  const placeholder = new RegExp(`"${JSON.stringify(mark).slice(1, -1).replace(/\\/g, '\\\\')}(\\d+)"`);
  return text.split(placeholder).map((piece, at) => (at % 2 === 1 ? raws[Number(piece)] : piece));
}
