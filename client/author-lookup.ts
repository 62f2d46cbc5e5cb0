import type { Node } from 'prosemirror-model';
import type { AuthorshipAnswer, TextAuthor } from '../shared/wire/authorship.ts';

/**
 * Who wrote the character after position `pos` of `doc` (the one before, at the end of a
 * block), by the authorship the server answered (WHO1): the block is found by id as the
 * server names it (its own, else its nearest ancestor's), the character by its offset among
 * the block's text. Null outside text, or where the answer and the text no longer agree.
 */
export function authorAt(answer: AuthorshipAnswer, doc: Node, pos: number): TextAuthor | null {
  const $pos = doc.resolve(Math.max(0, Math.min(pos, doc.content.size)));
  if (!$pos.parent.isTextblock) return null;
  let blockId = '';
  for (let depth = $pos.depth; depth > 0 && blockId === ''; depth--) {
    const id: unknown = $pos.node(depth).attrs.id;
    if (typeof id === 'string') blockId = id;
  }
  const block = answer.blocks.find((each) => each.blockId === blockId);
  if (!block) return null;
  const offset = $pos.parent.textBetween(0, $pos.parentOffset).length;
  const total = block.spans.reduce((sum, span) => sum + span.text.length, 0);
  if (total === 0) return null;
  let at = Math.min(offset, total - 1);
  for (const span of block.spans) {
    if (at < span.text.length) return span.by;
    at -= span.text.length;
  }
  return null;
}

/** How the app says who wrote a piece of text: `Written by Ana`, or an agent with its model and who accepted it. */
export function authorLabel(by: TextAuthor): string {
  if (by.kind === 'person') return `Written by ${by.name}`;
  const model = by.model ? ` (${by.model})` : '';
  const accepted = by.acceptedBy ? `, accepted by ${by.acceptedBy}` : ', not accepted yet';
  return `Written by agent ${by.name}${model}${accepted}`;
}
