import type { MarkdownSerializerState, ParseSpec } from 'prosemirror-markdown';
import { Fragment, type Node } from 'prosemirror-model';
import { schema } from './schema.ts';
import { cellAlign, type CellAlign } from './table-nodes.ts';

/**
 * OP13: tables in GitHub-flavoured Markdown, both ways (markdown.ts enables markdown-it's `table`
 * rule). The first row is the header; a column's alignment is its header cell's `align`.
 *
 * Written so that reading the output gives the table back:
 * - every `|` in a cell is written `\|`, inside code spans too: markdown-it's table rule drops
 *   the one character before a `|` when it is a backslash, before reading the cell's inline
 *   Markdown, which makes this escape the exact inverse;
 * - a row is as wide as the widest row (GFM drops cells beyond the header's and fills missing
 *   ones), shorter rows padded with empty cells;
 * - GFM cells hold one line: a hard break or a line break in a cell is written as a space.
 * A cell's leading and trailing spaces are not kept (GFM trims them).
 */

/** The parse specs of markdown.ts's MarkdownParser for markdown-it's table tokens. */
export const tableParseSpecs: Record<string, ParseSpec> = {
  table: { block: 'table' },
  thead: { ignore: true },
  tbody: { ignore: true },
  tr: { block: 'table_row' },
  th: { block: 'table_header', getAttrs: (tok) => ({ align: alignOfStyle(tok.attrGet('style')) }) },
  td: { block: 'table_cell', getAttrs: (tok) => ({ align: alignOfStyle(tok.attrGet('style')) }) },
};

function alignOfStyle(style: string | null): CellAlign | null {
  return cellAlign(/^text-align:\s*(\w+)/.exec(style ?? '')?.[1]);
}

/**
 * Writes `table` as a GFM table; `inlineMarkdown` gives the Markdown of a paragraph's inline
 * content (markdown.ts's serializer, so marks and escapes are the same as in the text).
 */
export function writeTable(state: MarkdownSerializerState, table: Node, inlineMarkdown: (paragraph: Node) => string): void {
  const rows: string[][] = [];
  table.forEach((row) => {
    const cells: string[] = [];
    row.forEach((cell) => cells.push(cellMarkdown(cell, inlineMarkdown)));
    rows.push(cells);
  });
  if (rows.length === 0) return;
  const width = Math.max(1, ...rows.map((cells) => cells.length));
  const aligns: (CellAlign | null)[] = [];
  table.firstChild?.forEach((cell) => aligns.push(cellAlign(cell.attrs.align)));
  const line = (cells: string[]) => '| ' + Array.from({ length: width }, (_, i) => cells[i] ?? '').join(' | ') + ' |';
  const lines = [line(rows[0]), line(Array.from({ length: width }, (_, i) => delimiter(aligns[i] ?? null))), ...rows.slice(1).map(line)];
  lines.forEach((text, i) => {
    if (i > 0) state.ensureNewLine();
    state.write(text);
  });
  state.closeBlock(table);
}

function delimiter(align: CellAlign | null): string {
  return align === 'center' ? ':---:' : align === 'right' ? '---:' : align === 'left' ? ':---' : '---';
}

/** The Markdown of one cell's inline content, on one line, its pipes escaped. */
function cellMarkdown(cell: Node, inlineMarkdown: (paragraph: Node) => string): string {
  const inline: Node[] = [];
  cell.forEach((child) => {
    if (child.type === schema.nodes.hard_break) inline.push(schema.text(' ', child.marks));
    else if (child.isText && child.text?.includes('\n')) inline.push(schema.text(child.text.replace(/\n/g, ' '), child.marks));
    else inline.push(child);
  });
  if (inline.length === 0) return '';
  const markdown = inlineMarkdown(schema.nodes.paragraph.create(null, Fragment.fromArray(inline)));
  return markdown.replace(/\n/g, ' ').trim().replace(/\|/g, '\\|');
}
