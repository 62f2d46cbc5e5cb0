import fc from 'fast-check';

// A word of Markdown: plain text, marks, links (some after a `!`, which the serializer escapes by
// rewriting the last character it wrote), code, and characters it escapes.
const word = fc.oneof(
  fc.constantFrom('alpha', 'beta', '*', '_', '#', '!', '[x]', '\\', '1.', '-', '>'),
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.constantFrom('**bold**', '*em*', '~~gone~~', '`code`', '[a link](https://example.com/a)', '![img](https://example.com/i.png)', '![](x)', '!', '[t](https://e.com "title")'),
);
const line = fc.array(word, { minLength: 1, maxLength: 40 }).map((words) => words.join(' '));
/** One block of Markdown: a paragraph, heading, list, quote, code block, rule, or lines with a hard break. */
export const markdownBlock = fc.oneof(
  line,
  line.map((text) => `# ${text}`),
  fc.array(line, { minLength: 1, maxLength: 4 }).map((items) => items.map((item) => `- ${item}`).join('\n')),
  fc.array(line, { minLength: 1, maxLength: 4 }).map((items) => items.map((item, i) => `${i + 1}. ${item}`).join('\n')),
  line.map((text) => `> ${text}\n> > ${text}`),
  line.map((text) => '```js\n' + text + '\n```'),
  fc.constant('---'),
  line.map((text) => `${text}  \n${text}`),
);
/**
 * Markdown documents of every block and mark the schema has, the blocks repeated, so that
 * outputs run past markdown-output.ts's chunk size (4,096 characters) at many places.
 */
export const markdown = fc
  .tuple(fc.array(markdownBlock, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 40 }))
  .map(([blocks, times]) => Array.from({ length: times }, () => blocks.join('\n\n')).join('\n\n'));

/**
 * Markdown without marks, of every block the schema has, some texts longer than the 50 blocks a
 * title's first line is looked for in: what server/docs/new-text-state.ts writes without a Y.Doc.
 */
export const unmarkedMarkdown = fc
  .tuple(
    fc.array(
      fc.oneof(
        fc.constantFrom(
          'Line 1.', 'word and word', '# Heading', '### Third', '- one\n- two\n\n  more', '1. first\n2. second', '3. three', '> quote\n>\n> > deeper',
          '```js\ncode\n\nmore\n```', '~~~\n~~~', '---', 'hard  \nbreak', 'été 日本 😀', '| a | b |\n|:--|--:|\n| c | d |', '![alt](https://example.com/i.png "t")',
          '    indented', '',
        ),
        fc.string({ maxLength: 20 }).filter((text) => !/[*_~`[\]<>!\\]/.test(text)),
      ),
      { minLength: 0, maxLength: 20 },
    ),
    fc.integer({ min: 1, max: 8 }),
  )
  .map(([blocks, times]) => Array.from({ length: times }, () => blocks.join('\n\n')).join('\n\n'));
