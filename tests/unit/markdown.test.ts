import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { markdownToDoc, docToMarkdown, serializer, withoutChangeMarks } from '../../shared/model/markdown.ts';
import { serializeMarkdown } from '../../shared/model/markdown-output.ts';
import { schema } from '../../shared/model/schema.ts';
import { markdownBlock } from '../helpers/markdown-arbitrary.ts';

const sample = `# Title

Some *emphasis*, **strong**, \`code\`, ~~gone~~ and a [link](https://example.com "Example").

## Lists

- one
- two

1. first
2. second

> quoted
> text

\`\`\`js
const x = 1;
\`\`\`

---

### End
Line one\\
line two
`;

describe('Markdown', () => {
  it('round-trips every construct of the schema unchanged after one normalisation', () => {
    const once = docToMarkdown(markdownToDoc(sample));
    const twice = docToMarkdown(markdownToDoc(once));
    expect(twice).toBe(once);
    expect(once).toContain('~~gone~~');
    expect(once).toContain('[link](https://example.com "Example")');
    expect(once).toContain('```js\nconst x = 1;\n```');
  });

  it('keeps the structure: headings, lists, quote, code, rule', () => {
    const doc = markdownToDoc(sample);
    const types: string[] = [];
    doc.forEach((b) => types.push(b.type.name + (b.type.name === 'heading' ? b.attrs.level : '')));
    expect(types).toEqual([
      'heading1', 'paragraph', 'heading2', 'bullet_list', 'ordered_list', 'blockquote', 'code_block', 'horizontal_rule', 'heading3', 'paragraph',
    ]);
  });

  it('gives every imported top-level block a unique id', () => {
    const doc = markdownToDoc(sample);
    const ids: string[] = [];
    doc.forEach((b) => ids.push(b.attrs.id));
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('[LIMIT10] writes runs of plain paragraphs as their texts and the rest through the serializer, as serializing the whole document writes it', () => {
    const plain = fc.constantFrom('Plain words here.', 'Another line, plain!', 'Zed', 'Ends with a colon:');
    fc.assert(
      fc.property(fc.array(fc.oneof(plain, markdownBlock, markdownBlock), { minLength: 0, maxLength: 14 }), fc.array(fc.nat(20), { maxLength: 4 }), (blocks, emptyAt) => {
        const parsed = markdownToDoc(blocks.join('\n\n'));
        const children: import('prosemirror-model').Node[] = [];
        parsed.forEach((block, _offset, index) => {
          // Empty paragraphs and rules, which have no content, between them.
          if (emptyAt.includes(index)) children.push(schema.nodes.paragraph.create());
          if (emptyAt.includes(index + 1)) children.push(schema.nodes.horizontal_rule.create());
          children.push(block);
        });
        const doc = schema.nodes.doc.create(null, children);
        expect(docToMarkdown(doc)).toBe(serializeMarkdown(serializer, withoutChangeMarks(doc), { tightLists: false }));
      }),
      { numRuns: Number(process.env.MARKDOWN_RUNS ?? 300) },
    );
  });
});