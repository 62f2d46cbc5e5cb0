import type { NodeSpec, Node, TagParseRule } from 'prosemirror-model';
import { tableNodes } from 'prosemirror-tables';

/**
 * The table nodes of the schema (prosemirror-tables' `tableNodes`), shaped for GitHub-flavoured
 * Markdown and for Yjs:
 * - a cell holds inline content only (`inline*`), as a GFM cell does, so a table's Markdown is
 *   all it holds (shared/model/table-markdown.ts);
 * - the table holds `table_row*`, not `+`: a concurrent delete may leave it empty (schema.ts);
 * - a cell's `align` (`left`, `center`, `right` or null) is its column's GFM alignment;
 * - cells are parsed with `colspan` and `rowspan` 1 and no `colwidth`: GFM has no merged cells,
 *   and column widths are left out because y-prosemirror compares attributes by `===` and would
 *   rewrite an array-valued one on every sync (the editor has no column resizing);
 * - a `<p>` inside a pasted cell is read for its text (cells from other editors wrap it so).
 * The table is one block with an `id` (`blockAttrs`); rows and cells carry none: agents address
 * the table as a whole, its Markdown the GFM table.
 */
export function tableNodeSpecs(
  blockAttrs: NonNullable<NodeSpec['attrs']>,
  readId: (dom: HTMLElement | string) => Record<string, unknown>,
  idAttr: (id: string | null) => Record<string, string>,
): Record<string, NodeSpec> {
  const specs = tableNodes({
    tableGroup: 'block',
    cellContent: 'inline*',
    cellAttributes: {
      align: {
        default: null,
        getFromDOM: (dom) => cellAlign(dom.style.textAlign || dom.getAttribute('align')),
        setDOMAttr: (value, attrs) => {
          const align = cellAlign(value);
          if (align) attrs.style = `text-align: ${align}`;
        },
      },
    },
  });
  const cell = (spec: NodeSpec): NodeSpec => ({
    ...spec,
    parseDOM: (spec.parseDOM as TagParseRule[]).map((rule) => ({
      ...rule,
      getAttrs: (dom: HTMLElement) => {
        const attrs = rule.getAttrs?.(dom);
        return attrs === false ? false : { ...(attrs ?? {}), colspan: 1, rowspan: 1, colwidth: null };
      },
    })),
  });
  return {
    table: {
      ...specs.table,
      content: 'table_row*',
      attrs: { ...blockAttrs },
      parseDOM: [{ tag: 'table', getAttrs: readId }],
      toDOM: (node: Node) => ['table', idAttr(node.attrs.id as string | null), ['tbody', 0]],
    },
    table_row: specs.table_row,
    table_cell: {
      ...cell(specs.table_cell),
      parseDOM: [...(cell(specs.table_cell).parseDOM ?? []), { tag: 'p', context: 'table_cell/|table_header/', skip: true, priority: 60 }],
    },
    table_header: cell(specs.table_header),
  };
}

export type CellAlign = 'left' | 'center' | 'right';

/** `value` as a cell alignment, or null when it is none. */
export function cellAlign(value: unknown): CellAlign | null {
  return value === 'left' || value === 'center' || value === 'right' ? value : null;
}
