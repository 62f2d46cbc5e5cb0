import { AlignmentType, Paragraph, Table, TableCell, TableRow, WidthType, type ParagraphChild } from 'docx';
import type { Node } from 'prosemirror-model';
import { cellAlign } from '../../shared/model/table-nodes.ts';

const alignments = { left: AlignmentType.LEFT, center: AlignmentType.CENTER, right: AlignmentType.RIGHT } as const;

/**
 * CAT5: a table of the text as a Word table (server/docs/doc-docx.ts), its first row repeated
 * as the header on every page, each cell one paragraph of `runs(cell)`. Null for a table without
 * rows, which Word cannot open; a row without cells gets one empty cell for the same reason.
 */
export function docxTable(table: Node, runs: (node: Node) => ParagraphChild[]): Table | null {
  const rows: TableRow[] = [];
  table.forEach((row, _offset, index) => {
    const cells: TableCell[] = [];
    row.forEach((cell) => {
      const align = cellAlign(cell.attrs.align);
      const paragraph = new Paragraph({ children: runs(cell), ...(align ? { alignment: alignments[align] } : {}) });
      cells.push(new TableCell({ children: [paragraph] }));
    });
    if (cells.length === 0) cells.push(new TableCell({ children: [new Paragraph({ children: [] })] }));
    rows.push(new TableRow({ children: cells, tableHeader: index === 0 }));
  });
  if (rows.length === 0) return null;
  return new Table({ rows, width: { size: 100, type: WidthType.PERCENTAGE } });
}
