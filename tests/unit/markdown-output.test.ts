import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { docToMarkdown, markdownToDoc, serializer, withoutChangeMarks } from '../../shared/model/markdown.ts';
import { markdown } from '../helpers/markdown-arbitrary.ts';

describe('Markdown output (shared/model/markdown-output.ts)', () => {
  it('is byte for byte what the stock prosemirror-markdown serializer writes, however long the output', () => {
    fc.assert(
      fc.property(markdown, (source) => {
        const doc = markdownToDoc(source);
        expect(docToMarkdown(doc)).toBe(serializer.serialize(withoutChangeMarks(doc), { tightLists: false }));
      }),
      { numRuns: 50 },
    );
  });

  it('writes a paragraph of 5,000 links as the stock serializer does', () => {
    const doc = markdownToDoc(Array.from({ length: 5000 }, (_, i) => `[l${i}](https://e.com/${i}) !`).join(' '));
    expect(docToMarkdown(doc)).toBe(serializer.serialize(doc, { tightLists: false }));
  });
});
