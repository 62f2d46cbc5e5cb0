import MarkdownIt from 'markdown-it';
import { MarkdownParser, MarkdownSerializer, defaultMarkdownSerializer } from 'prosemirror-markdown';
import type { Node } from 'prosemirror-model';
import { schema } from './schema.ts';
import { withBlockIds } from './block-ids.ts';

/**
 * Markdown import and export over the Tandem schema (CommonMark plus `~~strike~~`). Raw HTML
 * and images have no place in the schema: HTML is dropped, an image keeps its alt text.
 */

const tokenizer = MarkdownIt('commonmark', { html: false }).enable('strikethrough');

const parser = new MarkdownParser(schema, tokenizer, {
  blockquote: { block: 'blockquote' },
  paragraph: { block: 'paragraph' },
  list_item: { block: 'list_item' },
  bullet_list: { block: 'bullet_list', getAttrs: (tok, tokens, i) => ({ tight: isTight(tokens, i) }) },
  ordered_list: {
    block: 'ordered_list',
    getAttrs: (tok, tokens, i) => ({ order: Number(tok.attrGet('start')) || 1, tight: isTight(tokens, i) }),
  },
  heading: { block: 'heading', getAttrs: (tok) => ({ level: Math.min(3, Number(tok.tag.slice(1))) }) },
  code_block: { block: 'code_block', noCloseToken: true },
  fence: { block: 'code_block', getAttrs: (tok) => ({ params: tok.info.trim() }), noCloseToken: true },
  hr: { node: 'horizontal_rule' },
  hardbreak: { node: 'hard_break' },
  image: { ignore: true, noCloseToken: true },
  em: { mark: 'em' },
  strong: { mark: 'strong' },
  s: { mark: 'strike' },
  link: { mark: 'link', getAttrs: (tok) => ({ href: tok.attrGet('href') ?? '', title: tok.attrGet('title') || null }) },
  code_inline: { mark: 'code', noCloseToken: true },
});

function isTight(tokens: { hidden: boolean }[], i: number): boolean {
  return tokens[i + 2]?.hidden === true;
}

const serializer = new MarkdownSerializer(
  defaultMarkdownSerializer.nodes,
  {
    ...defaultMarkdownSerializer.marks,
    strike: { open: '~~', close: '~~', mixable: true, expelEnclosingWhitespace: true },
  },
);

/** Parses Markdown into a document whose top-level blocks all have ids. */
export function markdownToDoc(markdown: string): Node {
  const doc = parser.parse(markdown);
  return withBlockIds(doc);
}

/** Serialises a document (or any node with block content) to Markdown. */
export function docToMarkdown(doc: Node): string {
  return serializer.serialize(doc, { tightLists: false });
}

/** The Markdown of one block, as agents read and write it. */
export function blockToMarkdown(block: Node): string {
  return docToMarkdown(schema.nodes.doc.create(null, block)).trimEnd();
}

/**
 * Parses Markdown written for one block or a few, throwing a RangeError with a sentence for a
 * person when it holds nothing the schema can keep.
 */
export function markdownToBlocks(markdown: string): Node[] {
  const blocks: Node[] = [];
  parser.parse(markdown).forEach((block) => blocks.push(block));
  return blocks;
}
