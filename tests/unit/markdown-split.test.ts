import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseMarkdown, parseWholeMarkdown } from '../../shared/model/markdown.ts';
import { splitAtPlainParagraphs } from '../../shared/model/markdown-split.ts';
import { markdownBlock } from '../helpers/markdown-arbitrary.ts';

/*
 * A text parsed in pieces, cut at its plain paragraphs (shared/model/markdown-split.ts), must be
 * the text parsed whole. The generated texts put plain lines beside everything that could reach
 * across a cut: fences opened and never closed (backticks and tildes, indented, inside a list
 * item or a quote), indented code, list items and their continuation lines, lazy quote lines,
 * tables, reference definitions and their uses, blank lines of spaces and tabs, CR line endings.
 */

const seed = process.env.TANDEM_SEED ? Number(process.env.TANDEM_SEED) : undefined;
const plainLine = fc
  .array(fc.constantFrom('Line', 'word', 'Zeta', 'été', '7.', 'and,', '(so)', 'x'), { minLength: 1, maxLength: 5 })
  .map((words) => words.join(' '));
const reaching = fc.constantFrom(
  '```', '```js', '~~~', '~~~~', '  ```', '    ```', '- ```', '> ```', '````', '``` a`b',
  '    indented code', '  continued', '- item', '1. first', '-', '> quote', '> lazy',
  '| a | b |\n|---|---|\n| c | d |', 'Title\n===', 'Title\n---', '[ref]: https://example.com/r', '[ref]', '[ref][]',
  ' ', '\t', '', 'Line\r', '\\', '<div>', '***',
);
const piece = fc.oneof({ weight: 3, arbitrary: plainLine }, { weight: 2, arbitrary: reaching }, { weight: 2, arbitrary: markdownBlock });
const gap = fc.constantFrom('\n', '\n\n', '\n\n', '\n \n', '\n\t\n', '\n\n\n');
const text = fc
  .array(fc.tuple(piece, gap), { minLength: 1, maxLength: 30 })
  .map((parts) => parts.map(([part, after]) => part + after).join(''));

describe('Markdown parsed in pieces at its plain paragraphs (shared/model/markdown-split.ts)', () => {
  it('[LIMIT10] gives the document the whole text parsed at once gives', () => {
    fc.assert(
      fc.property(text, (markdown) => {
        expect(parseMarkdown(markdown).toJSON()).toEqual(parseWholeMarkdown(markdown).toJSON());
      }),
      { seed, numRuns: 3000 },
    );
  });

  it('cuts prose at each plain paragraph and keeps a fence open across blank lines', () => {
    expect(splitAtPlainParagraphs('One.\n\nTwo\n\n# Head\n\nThree')).toEqual([{ plain: 'One.' }, { plain: 'Two' }, { markdown: '\n# Head\n' }, { plain: 'Three' }]);
    expect(splitAtPlainParagraphs('```\n\nInside\n\n```\n\nAfter')).toEqual([{ markdown: '```\n\nInside\n\n```\n' }, { plain: 'After' }]);
    expect(splitAtPlainParagraphs('~~~~\n\nInside\n\n~~~\n\nStill inside')).toEqual([{ markdown: '~~~~\n\nInside\n\n~~~\n\nStill inside' }]);
    // A paragraph's line next to another line is no cut.
    expect(splitAtPlainParagraphs('One\nTwo')).toEqual([{ markdown: 'One\nTwo' }]);
  });

  it('does not cut a text with a reference definition or with CR line endings', () => {
    expect(splitAtPlainParagraphs('[a]\n\nPlain\n\n[a]: https://example.com/a')).toBeNull();
    expect(splitAtPlainParagraphs('One\r\n\r\nTwo')).toBeNull();
    expect(parseMarkdown('[a]\n\nPlain\n\n[a]: https://example.com/a').toJSON()).toEqual(parseWholeMarkdown('[a]\n\nPlain\n\n[a]: https://example.com/a').toJSON());
  });
});
