import type { BlockView } from '../shared/model/doc-content.ts';

/**
 * JSON text already written (a document's blocks, kept per version by server/docs/text-views.ts),
 * which the API's `sendReply` (server/http/reply.ts) puts into an answer as it is, rather than
 * parsing it and writing it again.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Blocks kept as JSON text, standing where an answer has its `blocks`. */
export function rawBlocks(json: string): BlockView[] {
  return new RawJson(json) as unknown as BlockView[];
}
