import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { docToMarkdown, markdownToDoc, serializer, withoutChangeMarks } from '../../shared/model/markdown.ts';

// A word of Markdown: plain text, marks, links (some after a `!`, which the serializer escapes by
// rewriting the last character it wrote), code, and characters it escapes.
const word = fc.oneof(
  fc.constantFrom('alpha', 'beta', '*', '_', '#', '!', '[x]', '\\', '1.', '-', '>'),
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.constantFrom('**bold**', '*em*', '~~gone~~', '`code`', '[a link](https://example.com/a)', '![img](https://example.com/i.png)', '![](x)', '!', '[t](https://e.com "title")'),
);
const line = fc.array(word, { minLength: 1, maxLength: 40 }).map((words) => words.join(' '));
const block = fc.oneof(
  line,
  line.map((text) => `# ${text}`),
  fc.array(line, { minLength: 1, maxLength: 4 }).map((items) => items.map((item) => `- ${item}`).join('\n')),
  fc.array(line, { minLength: 1, maxLength: 4 }).map((items) => items.map((item, i) => `${i + 1}. ${item}`).join('\n')),
  line.map((text) => `> ${text}\n> > ${text}`),
  line.map((text) => '```js\n' + text + '\n```'),
  fc.constant('---'),
  line.map((text) => `${text}  \n${text}`),
);
// Repeated, so that outputs run past the adapter's chunk size (4,096 characters) at many places.
const markdown = fc
  .tuple(fc.array(block, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 40 }))
  .map(([blocks, times]) => Array.from({ length: times }, () => blocks.join('\n\n')).join('\n\n'));

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
