import { describe, expect, it } from 'vitest';
import { markdownToDoc, docToMarkdown } from '../../shared/model/markdown.ts';

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
});
