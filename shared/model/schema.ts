import { Schema, type NodeSpec, type MarkSpec, type NodeType } from 'prosemirror-model';
import { safeLinkHref } from './safe-url.ts';
import { safeImageSrc } from './image-src.ts';
import { keepUnknownElements, unknownBlockName } from './unknown-content.ts';
import { tableNodeSpecs } from './table-nodes.ts';

/**
 * The one ProseMirror schema of Tandem, imported by the client, the server and the applier.
 *
 * Written for concurrency: every content expression uses `*` (a concurrent edit may leave any
 * container empty, and y-prosemirror deletes content its schema cannot build), and every
 * attribute has a default. Every block, at any depth, and every list item carry a stable `id`
 * (see block-ids.ts, DOC2 and OP12).
 */

/**
 * Every block (top-level or nested) and every list item: its `id`, and `deleting`, set while a
 * run has deleted the block and the run awaits review (a JSON string, see pending-delete.ts; the editor shows the block struck
 * through). Neither is parsed from pasted HTML.
 */
const blockId = { id: { default: null as string | null }, deleting: { default: null as string | null } };

const nodes: Record<string, NodeSpec> = {
  doc: { content: 'block*' },

  paragraph: {
    group: 'block',
    content: 'inline*',
    attrs: { ...blockId },
    parseDOM: [{ tag: 'p', getAttrs: readId }],
    toDOM: (node) => ['p', idAttr(node.attrs.id), 0],
  },

  heading: {
    group: 'block',
    content: 'inline*',
    defining: true,
    attrs: { ...blockId, level: { default: 1 } },
    parseDOM: [1, 2, 3].map((level) => ({
      tag: `h${level}`,
      getAttrs: (dom: HTMLElement) => ({ ...readId(dom), level }),
    })),
    toDOM: (node) => [`h${clampLevel(node.attrs.level)}`, idAttr(node.attrs.id), 0],
  },

  blockquote: {
    group: 'block',
    content: 'block*',
    defining: true,
    attrs: { ...blockId },
    parseDOM: [{ tag: 'blockquote', getAttrs: readId }],
    toDOM: (node) => ['blockquote', idAttr(node.attrs.id), 0],
  },

  code_block: {
    group: 'block',
    content: 'text*',
    // Only the review's `change` mark: a run's new code is shown like any other new text.
    marks: 'change',
    code: true,
    defining: true,
    attrs: { ...blockId, params: { default: '' } },
    parseDOM: [{ tag: 'pre', preserveWhitespace: 'full', getAttrs: readId }],
    toDOM: (node) => ['pre', idAttr(node.attrs.id), ['code', 0]],
  },

  horizontal_rule: {
    group: 'block',
    attrs: { ...blockId },
    parseDOM: [{ tag: 'hr', getAttrs: readId }],
    toDOM: (node) => ['hr', idAttr(node.attrs.id)],
  },

  /**
   * An image, a block of its own (IMG2): its address (`src`, IMG1: https or an asset of this
   * document), its alt text and title. Pasted HTML keeps an `<img>` only with an address IMG1
   * accepts; a stored node with another address is drawn as its alt text, never loaded.
   */
  image: {
    group: 'block',
    atom: true,
    draggable: true,
    attrs: { ...blockId, src: { default: '' }, alt: { default: '' }, title: { default: '' } },
    parseDOM: [
      {
        tag: 'img[src]',
        getAttrs: (dom: HTMLElement) => {
          const src = safeImageSrc(dom.getAttribute('src'));
          return src === null ? false : { ...readId(dom), src, alt: dom.getAttribute('alt') ?? '', title: dom.getAttribute('title') ?? '' };
        },
      },
    ],
    toDOM: (node) => {
      const src = safeImageSrc(node.attrs.src);
      const attrs = { alt: String(node.attrs.alt ?? ''), ...(node.attrs.title ? { title: String(node.attrs.title) } : {}) };
      return src === null ? ['p', idAttr(node.attrs.id), attrs.alt] : ['img', { ...idAttr(node.attrs.id), src, ...attrs }];
    },
  },

  bullet_list: {
    group: 'block',
    content: 'list_item*',
    attrs: { ...blockId, tight: { default: false } },
    parseDOM: [{ tag: 'ul', getAttrs: readId }],
    toDOM: (node) => ['ul', idAttr(node.attrs.id), 0],
  },

  ordered_list: {
    group: 'block',
    content: 'list_item*',
    attrs: { ...blockId, order: { default: 1 }, tight: { default: false } },
    parseDOM: [
      {
        tag: 'ol',
        getAttrs: (dom: HTMLElement) => ({
          ...readId(dom),
          order: dom.hasAttribute('start') ? Number(dom.getAttribute('start')) || 1 : 1,
        }),
      },
    ],
    toDOM: (node) => [
      'ol',
      { ...idAttr(node.attrs.id), ...(node.attrs.order === 1 ? {} : { start: node.attrs.order }) },
      0,
    ],
  },

  list_item: {
    content: 'block*',
    defining: true,
    attrs: { ...blockId },
    parseDOM: [{ tag: 'li', getAttrs: readId }],
    toDOM: (node) => ['li', idAttr(node.attrs.id), 0],
  },

  /** `table`, `table_row`, `table_cell`, `table_header`: shared/model/table-nodes.ts. */
  ...tableNodeSpecs(blockId, readId, idAttr),

  /**
   * VER6: an element of a name this schema lacks, written by a newer build (shared/model/unknown-content.ts).
   * An atom that keeps the element's Yjs content untouched while people type beside it. Never
   * parsed (no parseDOM: pasting cannot make one) nor dragged; deleting it deletes the element.
   */
  [unknownBlockName]: {
    group: 'block',
    atom: true,
    selectable: true,
    draggable: false,
    attrs: { ...blockId, name: { default: '' } },
    toDOM: (node) => [
      'div',
      { ...idAttr(node.attrs.id), class: 'unknown-block', 'data-unknown': node.attrs.name, contenteditable: 'false' },
      `Made by a newer version of Tandem (${node.attrs.name})`,
    ],
  },

  text: { group: 'inline' },

  hard_break: {
    group: 'inline',
    inline: true,
    selectable: false,
    parseDOM: [{ tag: 'br' }],
    toDOM: () => ['br'],
  },
};

const marks: Record<string, MarkSpec> = {
  strong: {
    parseDOM: [{ tag: 'strong' }, { tag: 'b' }],
    toDOM: () => ['strong', 0],
  },
  em: {
    parseDOM: [{ tag: 'em' }, { tag: 'i' }],
    toDOM: () => ['em', 0],
  },
  code: {
    parseDOM: [{ tag: 'code' }],
    toDOM: () => ['code', 0],
  },
  strike: {
    parseDOM: [{ tag: 's' }, { tag: 'del' }],
    toDOM: () => ['s', 0],
  },
  /**
   * A link keeps only a target that shared/model/safe-url.ts accepts: pasted or dropped HTML with any
   * other href gives plain text (the rule does not match), and a mark that holds another href
   * anyway (written as raw Yjs by an old or hostile client) renders as an `<a>` without href,
   * which is not a link.
   */
  link: {
    attrs: { href: { default: '' }, title: { default: null } },
    inclusive: false,
    parseDOM: [
      {
        tag: 'a[href]',
        getAttrs: (dom: HTMLElement) => {
          // LINK2: a pasted or dropped link with a refused target keeps its text only.
          const href = safeLinkHref(dom.getAttribute('href'));
          return href === null ? false : { href, title: dom.getAttribute('title') };
        },
      },
    ],
    toDOM: (mark) => {
      // LINK3: a stored mark with a refused target is drawn without href.
      const href = safeLinkHref(mark.attrs.href);
      return ['a', href === null ? { title: mark.attrs.title } : { href, title: mark.attrs.title }, 0];
    },
  },
  /**
   * Text a run inserted, linked to the instruction it answers (see shared/applier/applier.ts). Only the
   * applier writes it and Accept run removes it; it is no Markdown and never pasted (no
   * parseDOM). Kept last so that it sorts after every other mark in a mark set.
   */
  change: {
    attrs: { runId: { default: '' }, instructionId: { default: '' } },
    inclusive: false,
    parseDOM: [],
    toDOM: (mark) => [
      'span',
      { class: 'tandem-change', 'data-run': mark.attrs.runId, 'data-instruction': mark.attrs.instructionId },
      0,
    ],
  },
};

export const schema = new Schema({ nodes, marks });
keepUnknownElements(schema);

/** Node types that may stand at the top level of a document and so carry a block id. */
export const blockTypes = [
  'paragraph',
  'heading',
  'blockquote',
  'code_block',
  'horizontal_rule',
  'image',
  'bullet_list',
  'ordered_list',
  'table',
] as const;
export type BlockType = (typeof blockTypes)[number];

/** Whether nodes of this type carry an `id` (every block and list item, at any depth). */
export function carriesId(type: NodeType): boolean {
  return type.spec.attrs !== undefined && 'id' in type.spec.attrs;
}

/**
 * Whether nodes of this type hold blocks (or list items) that carry ids of their own (OP12). A
 * table and its rows do not: the table is one block, its cells no blocks of their own (OP13).
 */
export function holdsBlocks(type: NodeType): boolean {
  return !type.isTextblock && !type.isLeaf && type !== type.schema.topNodeType && type.spec.tableRole === undefined;
}

function readId(dom: HTMLElement | string) {
  return typeof dom === 'string' ? {} : { id: dom.getAttribute('data-block-id') };
}

function idAttr(id: string | null): Record<string, string> {
  return id ? { 'data-block-id': id } : {};
}

function clampLevel(level: unknown): number {
  return level === 2 || level === 3 ? level : 1;
}
