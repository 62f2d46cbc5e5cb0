import * as Y from 'yjs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyOps } from '../../shared/applier/applier.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import type { TextAuthor } from '../../shared/wire/authorship.ts';
import { groupSpans, textPieces } from '../../server/authorship/text-spans.ts';
import { replaceOp, setup } from '../helpers/applier-fixture.ts';
import { appendToBlock, makeYDoc } from '../helpers/doc-builder.ts';

const person = (name: string): TextAuthor => ({ kind: 'person', name });

describe('textPieces and groupSpans', () => {
  it('[WHO5] cuts a block into the spans of consecutive pieces of one author, across peers', () => {
    const ydoc = makeYDoc('hello\n\n- item');
    const ana = new Y.Doc();
    ana.clientID = 1001;
    Y.applyUpdate(ana, Y.encodeStateAsUpdate(ydoc));
    appendToBlock(ana, 0, ' Ana');
    Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(ana));
    const names = new Map([[ydoc.clientID, 'Owner'], [1001, 'Ana']]);
    const blocks = groupSpans(textPieces(docParts(ydoc).content), (client) => person(names.get(client) ?? 'Unknown'));
    expect(blocks[0].spans).toEqual([
      { text: 'hello', by: person('Owner') },
      { text: ' Ana', by: person('Ana') },
    ]);
    // The list item's paragraph is a block of its own, with an id (OP12).
    expect(blocks.map((block) => block.spans.map((span) => span.text).join(''))).toEqual(['hello Ana', 'item']);
    expect(new Set(blocks.map((block) => block.blockId)).size).toBe(2);
  });

  it('[WHO5] joins the pieces of equal authors and keeps apart those of different ones', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ client: fc.integer({ min: 0, max: 3 }), clock: fc.nat(), text: fc.string({ minLength: 1, maxLength: 3 }) }), { maxLength: 30 }), (pieces) => {
        // Clients 2 and 3 are one author: pieces of either join.
        const authorOf = (client: number) => person(client >= 2 ? 'Shared' : `P${client}`);
        const [{ spans }] = groupSpans([{ blockId: 'b', pieces }], authorOf);
        expect(spans.map((span) => span.text).join('')).toBe(pieces.map((piece) => piece.text).join(''));
        for (let i = 1; i < spans.length; i++) expect(spans[i].by).not.toEqual(spans[i - 1].by);
      }),
    );
  });
});

describe('the applier’s writerFor', () => {
  it('[WHO3] writes each instruction’s text under its own client id and gives the doc its id back', () => {
    const { ydoc, blocks, run, origin } = setup();
    const own = ydoc.clientID;
    const result = applyOps(
      ydoc,
      [
        replaceOp(blocks[1], 'Alpha beta gamma delta epsilon', 'i1'),
        { op: 'insert_after', blockId: blocks[1].id, markdown: 'A new block', instructionId: 'i2' },
        { op: 'insert_after', blockId: blocks[2].id, markdown: 'Another one', instructionId: 'i1' },
      ],
      { ...run, writerFor: (instructionId) => (instructionId === 'i1' ? 7001 : 7002) },
      origin,
    );
    expect(result.ok).toBe(true);
    expect(ydoc.clientID).toBe(own);
    const byClient = new Map<number, string>();
    for (const { pieces } of textPieces(docParts(ydoc).content)) {
      for (const { client, text } of pieces) byClient.set(client, (byClient.get(client) ?? '') + text);
    }
    expect(byClient.get(7001)).toBe(' epsilonAnother one');
    expect(byClient.get(7002)).toBe('A new block');
  });
});
