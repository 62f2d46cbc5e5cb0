import * as Y from 'yjs';
import type { AuthorSpan, AuthorshipAnswer, TextAuthor } from '../../shared/wire/authorship.ts';

/** A piece of text as one Yjs item holds it: the id of its first character (client, clock), and its characters. */
export interface TextPiece {
  client: number;
  clock: number;
  text: string;
}

export interface BlockPieces {
  blockId: string;
  pieces: TextPiece[];
}

/**
 * WHO5: the text of `yfragment` as it is now, block by block: every block that holds text (or,
 * empty, carries an id), in document order and depth first, with the pieces of its text in
 * order. A block without an id of its own takes its nearest ancestor's. Reads only.
 */
export function textPieces(yfragment: Y.XmlFragment): BlockPieces[] {
  const blocks: BlockPieces[] = [];
  const visit = (parent: Y.XmlFragment | Y.XmlElement, inheritedId: string) => {
    for (let item = parent._start; item !== null; item = item.right) {
      if (item.deleted || !(item.content instanceof Y.ContentType)) continue;
      const yelement = item.content.type;
      if (!(yelement instanceof Y.XmlElement)) continue;
      const ownId = yelement.getAttribute('id');
      const id = typeof ownId === 'string' && ownId !== '' ? ownId : inheritedId;
      const texts = yelement.toArray().filter((child): child is Y.XmlText => child instanceof Y.XmlText);
      if (texts.length > 0 || (yelement.length === 0 && id === ownId)) blocks.push({ blockId: id, pieces: texts.flatMap(piecesOf) });
      visit(yelement, id);
    }
  };
  visit(yfragment, '');
  return blocks;
}

function piecesOf(ytext: Y.XmlText): TextPiece[] {
  const pieces: TextPiece[] = [];
  for (let item = ytext._start; item !== null; item = item.right) {
    if (!item.deleted && item.content instanceof Y.ContentString) pieces.push({ client: item.id.client, clock: item.id.clock, text: item.content.str });
  }
  return pieces;
}

/** WHO5: each block's pieces grouped into spans: consecutive pieces whose authors are equal make one span. */
export function groupSpans(blocks: readonly BlockPieces[], authorOf: (client: number) => TextAuthor): AuthorshipAnswer['blocks'] {
  const keyed = new Map<number, { key: string; by: TextAuthor }>();
  const resolve = (client: number) => {
    let known = keyed.get(client);
    if (!known) {
      const by = authorOf(client);
      keyed.set(client, (known = { key: JSON.stringify(by), by }));
    }
    return known;
  };
  return blocks.map(({ blockId, pieces }) => {
    const spans: AuthorSpan[] = [];
    let lastKey: string | null = null;
    for (const { client, text } of pieces) {
      const { key, by } = resolve(client);
      if (key === lastKey) spans[spans.length - 1].text += text;
      else spans.push({ text, by });
      lastKey = key;
    }
    return { blockId, spans };
  });
}
