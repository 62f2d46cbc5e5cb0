import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Node } from 'prosemirror-model';
import { markdownToDoc, docToMarkdown, blockToMarkdown, markdownToBlocks } from '../../shared/model/markdown.ts';
import { schema } from '../../shared/model/schema.ts';
import { markdownPasteSlice } from '../../shared/model/markdown-paste.ts';
import { markdownImportWarnings } from '../../shared/model/markdown-warnings.ts';

/* GFM tables in and out of the schema (shared/model/table-markdown.ts, table-nodes.ts). */

const { nodes, marks } = schema;

/** The cells of `table` as text, row by row, with `th` or `td`. */
function cells(table: Node): string[][] {
  const rows: string[][] = [];
  table.forEach((row) => {
    const texts: string[] = [];
    row.forEach((cell) => texts.push(`${cell.type === nodes.table_header ? 'th' : 'td'}:${cell.textContent}`));
    rows.push(texts);
  });
  return rows;
}

function table(rows: Node[][][]): Node {
  return nodes.table.create(null, rows.map((row, r) => nodes.table_row.create(null, row.map((content) => (r === 0 ? nodes.table_header : nodes.table_cell).create(null, content)))));
}

describe('GFM tables', () => {
  it('read a table as one block: a header row, body rows, alignment, inline marks', () => {
    const doc = markdownToDoc('| Name | Qty |\n|:-----|----:|\n| *fig* | 2 |\n| a\\|b |\n\nAfter');
    expect(doc.childCount).toBe(2);
    const first = doc.child(0);
    expect(first.type).toBe(nodes.table);
    expect(typeof first.attrs.id).toBe('string');
    expect(cells(first)).toEqual([['th:Name', 'th:Qty'], ['td:fig', 'td:2'], ['td:a|b', 'td:']]);
    expect(first.child(0).child(1).attrs.align).toBe('right');
    expect(first.child(1).child(0).child(0).marks.map((mark) => mark.type.name)).toEqual(['em']);
      });

  it('[OP13] write a table as GFM: pipes escaped in text and code, short rows padded, alignment kept', () => {
    const doc = nodes.doc.create(null, [
      nodes.table.create(null, [
        nodes.table_row.create(null, [nodes.table_header.create({ align: 'center' }, schema.text('a|b')), nodes.table_header.create(null, schema.text('B'))]),
        nodes.table_row.create(null, [nodes.table_cell.create(null, schema.text('x|y', [marks.code.create()]))]),
      ]),
    ]);
    expect(docToMarkdown(doc)).toBe('| a\\|b | B |\n| :---: | --- |\n| `x\\|y` |  |');
    expect(cells(markdownToDoc(docToMarkdown(doc)).child(0))).toEqual([['th:a|b', 'th:B'], ['td:x|y', 'td:']]);
  });

  it('write a hard break in a cell as a space: a GFM cell holds one line', () => {
    const doc = nodes.doc.create(null, [table([[[schema.text('one'), nodes.hard_break.create(), schema.text('two')]]])]);
    expect(docToMarkdown(doc)).toBe('| one two |\n| --- |');
  });

  it('[OP13] give an agent the table as one block whose Markdown is the table, and read it back from that Markdown', () => {
    const source = '| a | b |\n| --- | --- |\n| 1 | 2 |';
    const [block] = markdownToBlocks(source);
    expect(blockToMarkdown(block)).toBe(source);
    expect(markdownToBlocks(source).length).toBe(1);
  });

  it('round-trip any table of generated cell text and marks', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9|\\*_`#~<>&![\]().-]{1,6}$/);
    const text = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(' '));
    const markSets = fc.constantFrom([], [marks.strong.create()], [marks.em.create()], [marks.code.create()], [marks.strike.create()]);
    const cell = fc.option(fc.tuple(text, markSets), { nil: null });
    const rows = fc.integer({ min: 1, max: 4 }).chain((width) => fc.array(fc.array(cell, { minLength: width, maxLength: width }), { minLength: 1, maxLength: 4 }));
    fc.assert(
      fc.property(rows, (generated) => {
        const doc = nodes.doc.create(null, [table(generated.map((row) => row.map((c) => (c === null ? [] : [schema.text(c[0], c[1])]))))]);
        const markdown = docToMarkdown(doc);
        const back = markdownToDoc(markdown);
        expect(back.childCount).toBe(1);
        expect(back.child(0).type).toBe(nodes.table);
        expect(back.child(0).content.eq(doc.child(0).content), markdown).toBe(true);
        expect(docToMarkdown(back)).toBe(markdown);
      }),
      { numRuns: 300 },
    );
  });

  it('never throw on any Markdown made of table pieces, and give back every table read from it', () => {
    const piece = fc.constantFrom('\\|', '`', '**', '_', 'a', ' ', '<br>', '\\', '[x](y)', '~~', '#', '1.', '- ', '> ');
    const cellText = fc.array(piece, { maxLength: 5 }).map((parts) => parts.join(''));
    const line = (cellsOf: fc.Arbitrary<string[]>) => fc.tuple(fc.boolean(), cellsOf, fc.boolean()).map(([open, cells, close]) => `${open ? '|' : ''}${cells.join('|')}${close ? '|' : ''}`);
    const tableSource = fc.integer({ min: 1, max: 3 }).chain((width) =>
      fc.tuple(
        line(fc.array(cellText, { minLength: width, maxLength: width })),
        line(fc.array(fc.constantFrom('---', ':--', '--:', ':-:', ' - '), { minLength: width, maxLength: width })),
        fc.array(line(fc.array(cellText, { minLength: 0, maxLength: width + 1 })), { maxLength: 3 }),
        fc.constantFrom('', '\n', '\n\nafter', '\n- item'),
      ).map(([head, delimiter, body, after]) => [head, delimiter, ...body].join('\n') + after),
    );
    const source = fc.oneof(tableSource, tableSource.map((table) => `> ${table.replace(/\n/g, '\n> ')}`), tableSource.map((table) => `- ${table.replace(/\n/g, '\n  ')}`));
    let tables = 0;
    fc.assert(
      fc.property(source, (source) => {
        markdownToDoc(source).descendants((node) => {
          if (node.type !== nodes.table) return true;
          tables++;
          const markdown = blockToMarkdown(node);
          const back = markdownToBlocks(markdown);
          expect(back.length, markdown).toBe(1);
          expect(back[0].content.eq(node.content), `${JSON.stringify(source)} → ${JSON.stringify(markdown)}`).toBe(true);
          return false;
        });
      }),
      { numRuns: 1000 },
    );
    expect(tables).toBeGreaterThan(500);
  });

  it('read a table of 10,000 rows whole, with no warning', () => {
    const source = '| n | v |\n| --- | --- |\n' + Array.from({ length: 10_000 }, (_, i) => `| ${i} | x |`).join('\n');
    const doc = markdownToDoc(source);
    expect(doc.child(0).childCount).toBe(10_001);
    expect(markdownImportWarnings(source)).toEqual([]);
    expect(docToMarkdown(doc)).toBe(source);
  });

  it('[EDIT4] paste a Markdown table as a table that is not opened into the paragraph it lands in', () => {
    const slice = markdownPasteSlice('| a | b |\n|---|---|\n| 1 | 2 |');
    expect(slice?.content.firstChild?.type).toBe(nodes.table);
    expect(slice?.openStart).toBe(0);
  });
});
