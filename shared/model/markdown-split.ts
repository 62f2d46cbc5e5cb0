import { isPlainLine } from './plain-markdown.ts';

/**
 * A Markdown text cut at its plain paragraphs: each piece is either one plain line (a paragraph
 * whose Markdown is its text, plain-markdown.ts) or the Markdown between two of them, parsed on
 * its own. A long text of prose is mostly plain paragraphs, which need neither markdown-it nor
 * its token handlers; markdown.ts parses only the pieces between them.
 */
export type MarkdownPiece = { plain: string } | { markdown: string };

/**
 * `markdown` in pieces, in order, whose parses joined are the parse of the whole
 * (tests/unit/markdown-split.test.ts holds them to it), or null where that is not certain. A plain
 * line cuts the text where a blank line (or the text's start) comes before it and a blank line
 * (or the text's end) after it, outside a fenced code block: after a blank line a line that
 * starts with a letter closes every quote, list, table and indented code block and starts a
 * paragraph, which the blank line after it ends, so what follows is parsed as from a text's
 * start. Two things reach across such a cut, and a text holding either is not cut: a link
 * reference definition (`[label]: …`, used anywhere in the text), and line endings markdown-it
 * rewrites first (`\r`, and NUL characters). A fence is followed at the top level only: a fence
 * nested in a quote or a list item is closed by the plain line too (where it is left open, the
 * blank lines before the cut are its content: markdown.ts then parses the whole text), and one
 * counted as open wrongly only leaves the text uncut until its closing line.
 */
export function splitAtPlainParagraphs(markdown: string): MarkdownPiece[] | null {
  if (markdown.includes(']:') || markdown.includes('\r') || markdown.includes('\0')) return null;
  const lines = markdown.split('\n');
  const pieces: MarkdownPiece[] = [];
  let pendingFrom = 0;
  let fence: { char: string; length: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (fence) {
      if (closesFence(line, fence)) fence = null;
      continue;
    }
    const opened = fenceOpening(line);
    if (opened) {
      fence = opened;
      continue;
    }
    if (!isPlainLine(line) || (i > 0 && !isBlank(lines[i - 1])) || (i + 1 < lines.length && !isBlank(lines[i + 1]))) continue;
    if (lines.slice(pendingFrom, i).some((pending) => !isBlank(pending))) pieces.push({ markdown: lines.slice(pendingFrom, i).join('\n') });
    pieces.push({ plain: line });
    pendingFrom = i + 1;
  }
  if (lines.slice(pendingFrom).some((pending) => !isBlank(pending))) pieces.push({ markdown: lines.slice(pendingFrom).join('\n') });
  return pieces;
}

/** A blank line as markdown-it reads one: nothing but spaces and tabs. */
function isBlank(line: string): boolean {
  return /^[ \t]*$/.test(line);
}

/** The fence a line opens at the top level (up to three spaces in, three or more backticks or tildes; a backtick fence's info string holds no backtick), or null. */
function fenceOpening(line: string): { char: string; length: number } | null {
  const match = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
  if (!match) return null;
  const [, marker, info] = match;
  if (marker[0] === '`' && info.includes('`')) return null;
  return { char: marker[0], length: marker.length };
}

/** Whether `line` closes `fence`: up to three spaces in, at least as many of its character, then only spaces or tabs. */
function closesFence(line: string, fence: { char: string; length: number }): boolean {
  const match = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
  return match !== null && match[1][0] === fence.char && match[1].length >= fence.length;
}
