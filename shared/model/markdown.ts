import MarkdownIt, { type Token } from 'markdown-it';
import { unknownBlockName } from './unknown-content.ts';
import { MarkdownParser, MarkdownSerializer, defaultMarkdownSerializer, type MarkdownSerializerState } from 'prosemirror-markdown';
import { Fragment, type Mark, type Node } from 'prosemirror-model';
import { schema } from './schema.ts';
import { withBlockIds } from './block-ids.ts';
import { isSafeLinkHref } from './safe-url.ts';
import { plainParagraph, plainParagraphMarkdown } from './plain-markdown.ts';
import { serializeMarkdown } from './markdown-output.ts';
import { tableParseSpecs, writeTable } from './table-markdown.ts';
import { imageBlocks, writeImage } from './markdown-images.ts';
import { splitAtPlainParagraphs } from './markdown-split.ts';

/**
 * Markdown import and export over the Tandem schema (CommonMark plus `~~strike~~`). Raw HTML
 * has no place in the schema and is dropped. An image becomes an image block (markdown-images.ts,
 * IMG2). A link or image whose target shared/model/safe-url.ts refuses is not parsed as one
 * (markdown-it leaves its source as literal text), and a link mark holding such a target exports
 * as its text alone.
 */

// GFM tables too: shared/model/table-markdown.ts.
const tokenizer = MarkdownIt('commonmark', { html: false }).enable(['strikethrough', 'table']);
// LINK2: markdown-it hands this hook the decoded and normalised destination of every link and image.
tokenizer.validateLink = isSafeLinkHref;
tokenizer.use(imageBlocks);

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
  image: { node: 'image', getAttrs: (tok: Token) => ({ src: tok.attrGet('src') ?? '', alt: tok.content, title: tok.attrGet('title') ?? '' }) },
  em: { mark: 'em' },
  strong: { mark: 'strong' },
  s: { mark: 'strike' },
  link: { mark: 'link', getAttrs: (tok) => ({ href: tok.attrGet('href') ?? '', title: tok.attrGet('title') || null }) },
  code_inline: { mark: 'code', noCloseToken: true },
  ...tableParseSpecs,
});

/**
 * The same parser over tokens markdown-it has made already: its tokenizer hands back what it is
 * given, so `parse` takes the token list in place of the text.
 */
const tokenParser = new MarkdownParser(schema, { parse: (tokens: unknown) => tokens } as unknown as MarkdownIt, parser.tokens);

function parseTokens(tokens: Token[]): Node {
  return tokenParser.parse(tokens as unknown as string);
}

function isTight(tokens: { hidden: boolean }[], i: number): boolean {
  return tokens[i + 2]?.hidden === true;
}

type MarkText = (state: MarkdownSerializerState, mark: Mark, parent: Node, index: number) => string;
const defaultLink = defaultMarkdownSerializer.marks.link as { open: MarkText; close: MarkText };

/**
 * The Markdown around a link's text: none for a refused target (LINK3). A mark written as raw
 * Yjs may hold a title that is no string, which the default serialiser would throw on.
 */
function linkText(write: MarkText, state: MarkdownSerializerState, mark: Mark, parent: Node, index: number): string {
  if (!isSafeLinkHref(mark.attrs.href)) return '';
  const title: unknown = mark.attrs.title;
  const clean = title === null || typeof title === 'string' ? mark : mark.type.create({ href: mark.attrs.href, title: null });
  return write(state, clean, parent, index);
}

/** The serializer (exported for the contract test of markdown-output.ts). */
export const serializer = new MarkdownSerializer(
  {
    ...defaultMarkdownSerializer.nodes,
    // VER6: a newer build's block has no Markdown here; it is left out of this build's output.
    [unknownBlockName]: (state, node) => state.closeBlock(node),
    table: (state, node) => writeTable(state, node, (paragraph) => docToMarkdown(schema.nodes.doc.create(null, paragraph)).trimEnd()),
    image: writeImage,
  },
  {
    ...defaultMarkdownSerializer.marks,
    strike: { open: '~~', close: '~~', mixable: true, expelEnclosingWhitespace: true },
    link: {
      open: (state, mark, parent, index) => linkText(defaultLink.open, state, mark, parent, index),
      close: (state, mark, parent, index) => linkText(defaultLink.close, state, mark, parent, index),
    },
    // Never reached (docToMarkdown strips the mark first); present so that no path can throw.
    change: { open: '', close: '', mixable: true },
  },
);

/** Parses Markdown into a document whose top-level blocks all have ids. */
export function markdownToDoc(markdown: string): Node {
  return withBlockIds(parseMarkdown(markdown));
}

/**
 * The document of `markdown`, without block ids: its plain paragraphs made directly and only the
 * Markdown between them parsed (markdown-split.ts), which is the parse of the whole text
 * (`parseWholeMarkdown`) at a fraction of the cost for prose.
 */
export function parseMarkdown(markdown: string): Node {
  const pieces = splitAtPlainParagraphs(markdown);
  if (pieces === null || pieces.every((piece) => 'markdown' in piece)) return parseWholeMarkdown(markdown);
  const blocks: Node[] = [];
  for (const piece of pieces) {
    if ('plain' in piece) {
      blocks.push(schema.nodes.paragraph.create(null, schema.text(piece.plain)));
      continue;
    }
    // A piece whose tokens are none adds no block (parsed alone, it would read as an empty paragraph).
    const tokens = tokenizer.parse(piece.markdown, {});
    // A fence left open in a list item or a quote ends with them, and where that is at the cut, the
    // whole text gives it the blank lines before the cut as content: such a text is parsed whole.
    if (tokens.some(isUnclosedFence)) return parseWholeMarkdown(markdown);
    if (tokens.length > 0) parseTokens(tokens).forEach((block) => blocks.push(block));
  }
  return schema.topNodeType.create(null, blocks);
}

/** A fence token without its closing line: its lines are its opening line and its content only. */
function isUnclosedFence(token: Token): boolean {
  if (token.type !== 'fence' || token.map === null) return false;
  let contentLines = 0;
  for (let at = token.content.indexOf('\n'); at >= 0; at = token.content.indexOf('\n', at + 1)) contentLines++;
  return token.map[1] - token.map[0] <= 1 + contentLines;
}

/** The document of `markdown` parsed whole by markdown-it and prosemirror-markdown, without block ids. */
export function parseWholeMarkdown(markdown: string): Node {
  return parser.parse(markdown);
}

/**
 * Serialises a document (or any node with block content) to Markdown. The review's `change`
 * marks are not Markdown: they are removed first, so text reads and hashes the same with or
 * without them (a mark boundary would otherwise split text nodes and could move escapes).
 */
export function docToMarkdown(doc: Node): string {
  const content = withoutChangeMarks(doc);
  if (content.type !== schema.topNodeType) return serializeMarkdown(serializer, content, { tightLists: false });
  // A plain paragraph's Markdown is its text (plain-markdown.ts), and the serializer puts one
  // blank line between top-level blocks: runs of plain paragraphs are written as their texts,
  // only the blocks between them go through the serializer (tests/unit/markdown.test.ts holds
  // this to serializing the whole document). A long text of prose is mostly such runs. Beside a
  // block with no content (an empty paragraph, which writes nothing, or a newer build's block)
  // the serializer spaces blocks otherwise, so a plain paragraph there goes through it too.
  const pieces: string[] = [];
  let others: Node[] = [];
  let joinable = true;
  const flushOthers = () => {
    if (others.length === 0) return;
    const written = serializeMarkdown(serializer, content.type.create(null, others), { tightLists: false });
    // Blocks that write nothing, or blank lines, at an end: the serializer trims and spaces
    // those by what surrounds them, so the whole document is written by it instead.
    joinable &&= written !== '' && !/\s/.test(written[0]) && !/\s/.test(written[written.length - 1]);
    pieces.push(written);
    others = [];
  };
  const empty = (index: number) => index >= 0 && index < content.childCount && content.child(index).childCount === 0;
  content.forEach((block, _offset, index) => {
    const plain = empty(index - 1) || empty(index + 1) ? null : plainParagraphMarkdown(block);
    if (plain === null) {
      others.push(block);
      return;
    }
    flushOthers();
    pieces.push(plain);
  });
  flushOthers();
  return joinable ? pieces.join('\n\n') : serializeMarkdown(serializer, content, { tightLists: false });
}

/**
 * `node` without the `change` marks of run `runId` (of every run when omitted), and only of the
 * instructions in `instructionIds` when given (REV12). Pure; subtrees holding no such mark are
 * returned as they are (same objects), so that a diff of the result against `node` touches
 * only the text that carried the marks.
 */
export function withoutChangeMarks(node: Node, runId?: string, instructionIds?: ReadonlySet<string>): Node {
  if (node.isText) {
    const kept = node.marks.filter((mark) => !isChangeMark(mark, runId, instructionIds));
    return kept.length === node.marks.length ? node : node.mark(kept);
  }
  if (node.childCount === 0) return node;
  const children: Node[] = [];
  let changed = false;
  node.forEach((child) => {
    const stripped = withoutChangeMarks(child, runId, instructionIds);
    changed ||= stripped !== child;
    children.push(stripped);
  });
  return changed ? node.copy(Fragment.fromArray(children)) : node;
}

function isChangeMark(mark: Mark, runId: string | undefined, instructionIds: ReadonlySet<string> | undefined): boolean {
  return (
    mark.type.name === 'change' &&
    (runId === undefined || mark.attrs.runId === runId) &&
    (instructionIds === undefined || instructionIds.has(mark.attrs.instructionId as string))
  );
}

/**
 * The Markdown of one block, as agents read and write it. A list item's is the Markdown of its
 * content, without the list's marker (OP12): what a `replace_block` of the item writes.
 */
export function blockToMarkdown(block: Node): string {
  const plainText = plainParagraphMarkdown(block);
  if (plainText !== null) return plainText;
  const content = block.type === schema.nodes.list_item ? block.content : block;
  return docToMarkdown(schema.nodes.doc.create(null, content)).trimEnd();
}

/**
 * Parses Markdown written for one block or a few, throwing a RangeError with a sentence for a
 * person when it holds nothing the schema can keep.
 */
export function markdownToBlocks(markdown: string): Node[] {
  const paragraph = plainParagraph(markdown);
  if (paragraph !== null) return [paragraph];
  const blocks: Node[] = [];
  parser.parse(markdown).forEach((block) => blocks.push(block));
  return blocks;
}
