import type { Node } from 'prosemirror-model';
import { schema } from './schema.ts';

/**
 * The Markdown of a plain paragraph, read and written without markdown-it or the serialiser:
 * most blocks an agent reads and writes are prose without any Markdown syntax, and for those
 * the Markdown is the text itself. "Plain" is kept narrow so that both directions are exactly
 * what markdown.ts's full parser and serialiser produce (tests/unit/plain-markdown.test.ts
 * checks it over generated text): one line that starts with a letter, holds only letters,
 * digits, single spaces and punctuation that CommonMark gives no meaning in the middle of a
 * line (no `\ ` * _ [ ] < > & # ~ |`), and ends in no space.
 */
export function isPlainLine(text: string): boolean {
  return plainLine.test(text);
}

// A letter, then letters, digits and plain punctuation, each after at most one space: one pass
// over the line, without backtracking.
const plainLine = /^\p{L}(?: ?[\p{L}\p{N},.;:'"?!()/%@$=+-])*$/u;

/** `markdown` as a paragraph when it is plain, else null (parse it with markdown.ts). */
export function plainParagraph(markdown: string): Node | null {
  if (!isPlainLine(markdown)) return null;
  return schema.nodes.paragraph.create(null, schema.text(markdown));
}

/**
 * The Markdown of `block` when it is a paragraph of plain text whose only marks are the
 * review's `change` marks (which Markdown does not show), else null.
 */
export function plainParagraphMarkdown(block: Node): string | null {
  if (block.type !== schema.nodes.paragraph || block.childCount === 0) return null;
  let text = '';
  for (let i = 0; i < block.childCount; i++) {
    const child = block.child(i);
    if (!child.isText) return null;
    for (const mark of child.marks) if (mark.type !== schema.marks.change) return null;
    text += child.text;
  }
  return isPlainLine(text) ? text : null;
}
