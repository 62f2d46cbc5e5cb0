import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Node } from 'prosemirror-model';
import { docToMarkdown, markdownToDoc } from '../../shared/model/markdown.ts';
import { isPlainLine, plainParagraph, plainParagraphMarkdown } from '../../shared/model/plain-markdown.ts';
import { schema } from '../../shared/model/schema.ts';

/*
 * The plain-paragraph shortcut must be invisible: wherever it answers, the full markdown-it
 * parser and the prosemirror-markdown serialiser give exactly the same answer. The generated
 * lines mix the characters the shortcut accepts with every character CommonMark gives a
 * meaning, so both sides of its boundary are exercised.
 */

const seed = process.env.TANDEM_SEED ? Number(process.env.TANDEM_SEED) : undefined;
const alphabet = [...'abcXYZ019 ,.;:\'"?!()/%@$=+-', '  ', ...'`*_[]<>&#~|\\\t', 'é', 'ß', '日', '²', '\u00a0', '😀'];
const lines = fc.array(fc.constantFrom(...alphabet), { minLength: 0, maxLength: 24 }).map((chars) => chars.join(''));
/** Every ASCII character, control characters and DEL included: the lines `isPlainLine` reads by table. */
const asciiLines = fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((code) => String.fromCharCode(code)), maxLength: 16 });

function withoutId(node: Node): unknown {
  const json = node.toJSON() as { attrs?: Record<string, unknown> };
  delete json.attrs?.id;
  return json;
}

describe('plain paragraphs', () => {
  it('parse exactly as the full Markdown parser parses them', () => {
    let plain = 0;
    fc.assert(
      fc.property(lines, (line) => {
        const shortcut = plainParagraph(line);
        if (shortcut === null) return;
        plain++;
        const full = markdownToDoc(line);
        expect(full.childCount).toBe(1);
        expect(withoutId(shortcut)).toEqual(withoutId(full.child(0)));
      }),
      { seed, numRuns: 2000 },
    );
    expect(plain).toBeGreaterThan(50);
  });

  it('serialise exactly as the full Markdown serialiser writes them, change marks and all', () => {
    let plain = 0;
    const change = schema.marks.change.create({ runId: 'r1', instructionId: 'i1' });
    fc.assert(
      fc.property(lines, fc.nat(24), (line, cut) => {
        if (line === '') return;
        const at = Math.min(cut, line.length);
        const texts = [line.slice(0, at), line.slice(at)].filter((text) => text !== '');
        const paragraph = schema.nodes.paragraph.create(null, texts.map((text, i) => schema.text(text, i === 1 ? [change] : [])));
        const shortcut = plainParagraphMarkdown(paragraph);
        if (shortcut === null) return;
        plain++;
        expect(shortcut).toBe(docToMarkdown(schema.nodes.doc.create(null, paragraph)).trimEnd());
      }),
      { seed, numRuns: 2000 },
    );
    expect(plain).toBeGreaterThan(50);
  });

  it('are one line of letters, digits, single spaces and inert punctuation starting with a letter', () => {
    expect(isPlainLine('Revised by the agent (twice), 100% sure: yes!')).toBe(true);
    expect(isPlainLine('Café über 日本')).toBe(true);
    for (const line of ['', ' a', 'a ', 'a  b', '1. a', '- a', 'a *b*', 'a_b', 'a `b`', 'a [b](c)', 'a &amp; b', 'a <b>', 'a\nb', 'a # b', 'a\\b', 'a\tb', 'a 😀']) {
      expect(isPlainLine(line), JSON.stringify(line)).toBe(false);
    }
  });

  it('are recognised exactly as a character-by-character reading of that rule recognises them', () => {
    fc.assert(
      fc.property(fc.oneof(lines, asciiLines, fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 12 })), (line) => {
        expect(isPlainLine(line), JSON.stringify(line)).toBe(plainByCharacters(line));
      }),
      { seed, numRuns: 5000 },
    );
  });
});

/** The rule of `isPlainLine`, read one code point at a time. */
function plainByCharacters(text: string): boolean {
  const points = [...text];
  if (points.length === 0 || !/^\p{L}$/u.test(points[0])) return false;
  return points.every((point, i) => {
    if (point === ' ') return i < points.length - 1 && points[i + 1] !== ' ';
    return /^[\p{L}\p{N}]$/u.test(point) || `,.;:'"?!()/%@$=+-`.includes(point);
  });
}
