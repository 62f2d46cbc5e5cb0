import { describe, expect, it } from 'vitest';
import { authorAt, authorLabel } from '../../client/author-lookup.ts';
import type { AuthorshipAnswer, TextAuthor } from '../../shared/wire/authorship.ts';
import { makeDoc } from '../helpers/doc-builder.ts';

const ana: TextAuthor = { kind: 'person', name: 'Ana' };
const bo: TextAuthor = { kind: 'person', name: 'Bo' };

describe('authorAt', () => {
  it('[WHO7] finds the author of the character at a position by block id and text offset', () => {
    const doc = makeDoc('hello world\n\n- item');
    const ids: string[] = [];
    doc.descendants((node) => {
      if (node.isTextblock) ids.push(node.attrs.id as string);
    });
    const answer: AuthorshipAnswer = {
      blocks: [
        { blockId: ids[0], spans: [{ text: 'hello', by: ana }, { text: ' world', by: bo }] },
        { blockId: ids[1], spans: [{ text: 'item', by: bo }] },
      ],
    };
    const positionOf = (text: string) => {
      let found = -1;
      doc.descendants((node, pos) => {
        if (found < 0 && node.isText && node.text!.includes(text)) found = pos + node.text!.indexOf(text);
      });
      return found;
    };
    expect(authorAt(answer, doc, positionOf('hello'))).toEqual(ana);
    expect(authorAt(answer, doc, positionOf('world'))).toEqual(bo);
    // At the end of a block: the last character's author.
    expect(authorAt(answer, doc, positionOf('world') + 5)).toEqual(bo);
    expect(authorAt(answer, doc, positionOf('item'))).toEqual(bo);
    expect(authorAt({ blocks: [] }, doc, positionOf('hello'))).toBeNull();
  });

  it('[WHO7] says a person’s and an agent’s authorship in words', () => {
    expect(authorLabel(ana)).toBe('Written by Ana');
    expect(authorLabel({ kind: 'agent', name: 'Scribe', model: 'm1', acceptedBy: 'Ana', runId: 'r', instructionId: 'i' })).toBe('Written by agent Scribe (m1), accepted by Ana');
    expect(authorLabel({ kind: 'agent', name: 'Scribe', runId: 'r', instructionId: 'i' })).toBe('Written by agent Scribe, not accepted yet');
  });
});
