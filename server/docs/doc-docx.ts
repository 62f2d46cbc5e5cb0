import { AlignmentType, Document, ExternalHyperlink, HeadingLevel, LevelFormat, Packer, Paragraph, TextRun, type ParagraphChild, type Table } from 'docx';
import type { Mark, Node } from 'prosemirror-model';
import { safeLinkHref } from '../../shared/model/safe-url.ts';
import { docxTable } from './docx-table.ts';
import type { OwnImages } from './own-images.ts';
import { imageParagraph } from './docx-image.ts';

/**
 * CAT5: a text document as a Word document (`GET /api/docs/:id/docx`), written with the `docx`
 * package. Headings, paragraphs, quotes (indented, italic), code blocks (monospace, a line per
 * paragraph), rules, bullet and numbered lists (nested by level), bold, italic, strikethrough,
 * inline code, links (safe targets only, LINK1), tables (server/docs/docx-table.ts) and images
 * (the document's own embedded, others as their alt text and address, docx-image.ts). Review
 * marks and pending deletes are the caller's to remove.
 */
export async function docToDocx(doc: Node, title: string, images: OwnImages = {}): Promise<Uint8Array> {
  const writer = new DocxWriter(images);
  doc.forEach((block) => writer.block(block, { quote: false, list: null }));
  const document = new Document({
    title: title || 'Untitled',
    creator: 'Tandem',
    numbering: {
      config: writer.numberings.map((start, index) => ({
        reference: `numbered-${index}`,
        levels: Array.from({ length: maxListDepth }, (_, level) => ({
          level,
          format: LevelFormat.DECIMAL,
          text: `%${level + 1}.`,
          start: level === 0 ? start : 1,
          alignment: AlignmentType.START,
          style: { paragraph: { indent: { left: 720 * (level + 1), hanging: 360 } } },
        })),
      })),
    },
    sections: [{ children: writer.paragraphs }],
  });
  return new Uint8Array(await Packer.toBuffer(document));
}

/** Word numbers up to nine list levels. */
const maxListDepth = 9;

interface Context {
  quote: boolean;
  /** The list the block is in: bullets, or the reference of a numbering; its depth. */
  list: { kind: 'bullet' | string; level: number } | null;
}

const headingLevels = [HeadingLevel.HEADING_1, HeadingLevel.HEADING_2, HeadingLevel.HEADING_3, HeadingLevel.HEADING_4, HeadingLevel.HEADING_5, HeadingLevel.HEADING_6];

class DocxWriter {
  readonly paragraphs: (Paragraph | Table)[] = [];
  /** The first number of each numbered list, by its index in the reference. */
  readonly numberings: number[] = [];

  constructor(private readonly images: OwnImages) {}

  block(node: Node, context: Context): void {
    switch (node.type.name) {
      case 'heading':
        this.paragraphs.push(new Paragraph({ heading: headingLevels[Math.min(5, Math.max(0, Number(node.attrs.level) - 1))], children: runs(node) }));
        return;
      case 'blockquote':
        node.forEach((child) => this.block(child, { ...context, quote: true }));
        return;
      case 'code_block':
        for (const line of node.textContent.split('\n')) {
          this.paragraphs.push(new Paragraph({ children: [new TextRun({ text: line, font: 'Consolas' })], ...this.placement(context) }));
        }
        return;
      case 'table': {
        const table = docxTable(node, (cell) => runs(cell, context.quote));
        if (table) this.paragraphs.push(table);
        return;
      }
      case 'image':
        this.paragraphs.push(imageParagraph(node, this.images, this.placement(context)));
        return;
      case 'horizontal_rule':
        this.paragraphs.push(new Paragraph({ border: { bottom: { style: 'single', size: 6, color: 'auto', space: 1 } }, children: [] }));
        return;
      case 'bullet_list':
      case 'ordered_list': {
        let kind = 'bullet';
        if (node.type.name === 'ordered_list') {
          kind = `numbered-${this.numberings.length}`;
          this.numberings.push(Number(node.attrs.order) || 1);
        }
        const level = context.list ? Math.min(maxListDepth - 1, context.list.level + 1) : 0;
        node.forEach((item) => {
          // The first block of an item carries the bullet or number; the others are indented under it.
          let first = true;
          item.forEach((child) => {
            this.block(child, { ...context, list: { kind: first ? kind : 'continued', level } });
            first = false;
          });
        });
        return;
      }
      default:
        this.paragraphs.push(new Paragraph({ children: runs(node, context.quote), ...this.placement(context) }));
    }
  }

  /** Where a paragraph sits: in a list (with its bullet or number), under a quote, or on its own. */
  private placement(context: Context) {
    const list = context.list;
    const quoteIndent = context.quote ? { indent: { left: 720 } } : {};
    if (!list) return quoteIndent;
    if (list.kind === 'bullet') return { bullet: { level: list.level } };
    if (list.kind === 'continued') return { indent: { left: 720 * (list.level + 1) } };
    return { numbering: { reference: list.kind, level: list.level } };
  }
}

/** The text runs of a block's inline content; links become hyperlinks around their runs. */
function runs(node: Node, italics = false): ParagraphChild[] {
  const children: ParagraphChild[] = [];
  node.forEach((child) => {
    if (child.type.name === 'hard_break') {
      children.push(new TextRun({ break: 1 }));
      return;
    }
    if (!child.isText) {
      if (child.textContent) children.push(new TextRun({ text: child.textContent }));
      return;
    }
    const has = (name: string) => child.marks.some((mark: Mark) => mark.type.name === name);
    const link = child.marks.find((mark) => mark.type.name === 'link');
    const href = link ? safeLinkHref(link.attrs.href) : null;
    const run = new TextRun({
      text: child.text ?? '',
      bold: has('strong'),
      italics: italics || has('em'),
      strike: has('strike'),
      ...(has('code') ? { font: 'Consolas' } : {}),
      ...(href ? { style: 'Hyperlink' } : {}),
    });
    children.push(href ? new ExternalHyperlink({ link: href, children: [run] }) : run);
  });
  return children;
}
