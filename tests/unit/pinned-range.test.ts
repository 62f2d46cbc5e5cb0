import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Node } from 'prosemirror-model';
import { schema } from '../../shared/model/schema.ts';
import { blockText, changeRange, pinnedRange } from '../../agents/reference/pinned-range.ts';

/*
 * REF1's range arithmetic (agents/reference/pinned-range.ts), property-tested: a change applied
 * to a pinned range changes exactly those characters, and every character keeps its marks.
 */

const markNames = ['strong', 'em', 'code'] as const;

/** A paragraph of pieces of text, each under some marks. */
const paragraph = fc
  .array(fc.record({ text: fc.stringMatching(/^[a-zA-Z ]{1,8}$/), marks: fc.subarray([...markNames]) }), { minLength: 1, maxLength: 6 })
  .map((pieces) => schema.nodes.paragraph.create(null, pieces.map((piece) => schema.text(piece.text, piece.marks.map((name) => schema.marks[name].create())))));

/** Each character of `block` with the names of its marks. */
function characters(block: Node): { char: string; marks: string }[] {
  const out: { char: string; marks: string }[] = [];
  block.forEach((child) => {
    for (const char of child.text ?? '') out.push({ char, marks: child.marks.map((mark) => mark.type.name).sort().join(',') });
  });
  return out;
}

describe('the pinned range (REF1)', () => {
  it('uppercases exactly the pinned characters and keeps every character’s marks', () => {
    fc.assert(
      fc.property(paragraph, fc.nat(), fc.nat(), (block, a, b) => {
        const text = blockText([block]);
        const from = a % (text.length + 1);
        const to = from + (b % (text.length - from + 1));
        const [changed] = changeRange([block], { from, to }, (part) => part.toUpperCase());
        const before = characters(block);
        const after = characters(changed);
        expect(after.map((c) => c.marks)).toEqual(before.map((c) => c.marks));
        expect(after.map((c) => c.char).join('')).toBe(text.slice(0, from) + text.slice(from, to).toUpperCase() + text.slice(to));
      }),
    );
  });

  it('finds a pinned substring where it first occurs, and the whole block for an empty or whole pin', () => {
    fc.assert(
      fc.property(paragraph, fc.nat(), fc.nat(), (block, a, b) => {
        const text = blockText([block]);
        const from = a % text.length;
        const to = from + 1 + (b % (text.length - from));
        const quote = text.slice(from, to);
        const range = pinnedRange([block], { quote, currentText: quote });
        if (quote === text) expect(range).toBe('whole');
        else expect(range).toEqual({ from: text.indexOf(quote), to: text.indexOf(quote) + quote.length });
        expect(pinnedRange([block], { quote: '', currentText: '' })).toBe('whole');
      }),
    );
  });
});
