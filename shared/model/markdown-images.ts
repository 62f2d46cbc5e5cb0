import type MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';
import type { MarkdownSerializerState } from 'prosemirror-markdown';
import type { Node } from 'prosemirror-model';
import { safeImageSrc } from './image-src.ts';

/**
 * Images in Markdown (IMG2). In Markdown an image is inline, in Tandem's schema a block: this
 * markdown-it rule lifts each image out of its paragraph into a block `image` token of its own,
 * splitting the paragraph's text around it. Where no block may stand (a heading, a link's
 * text) an image keeps its alt text. An image whose address IMG1 refuses stays as the text of
 * its source, as a refused link does, so nothing is dropped unsaid.
 */
export function imageBlocks(md: MarkdownIt): void {
  md.core.ruler.after('inline', 'tandem_image_blocks', (state) => {
    const out: Token[] = [];
    const tokens = state.tokens;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i];
      if (token.type === 'inline' && token.children) {
        const inParagraph = tokens[i - 1]?.type === 'paragraph_open' && tokens[i + 1]?.type === 'paragraph_close';
        if (!inParagraph) {
          token.children = token.children.map((child) => (child.type === 'image' ? asText(state, child, true) : child));
        } else if (token.children.some((child) => child.type === 'image')) {
          // The paragraph's opening token, just copied to `out`, is replaced with the split.
          const open = tokens[i - 1];
          out.pop();
          const close = tokens[i + 1];
          out.push(...splitParagraph(state, open, token, close));
          i++;
          continue;
        }
      }
      out.push(token);
    }
    state.tokens = out;
  });
}

type CoreState = Parameters<Parameters<MarkdownIt['core']['ruler']['after']>[2]>[0];

function splitParagraph(state: CoreState, open: Token, inline: Token, close: Token): Token[] {
  const out: Token[] = [];
  let segment: Token[] = [];
  let linkDepth = 0;
  const flush = () => {
    const kept = trimmed(segment);
    segment = [];
    if (kept.length === 0) return;
    const paragraphInline = new state.Token('inline', '', 0);
    paragraphInline.children = kept;
    paragraphInline.content = kept.map((child) => child.content).join('');
    paragraphInline.map = inline.map;
    out.push(cloneToken(state, open), paragraphInline, cloneToken(state, close));
  };
  for (const child of inline.children ?? []) {
    if (child.type === 'link_open') linkDepth++;
    if (child.type === 'link_close') linkDepth--;
    if (child.type !== 'image') {
      segment.push(child);
    } else if (linkDepth > 0) {
      segment.push(asText(state, child, true));
    } else if (safeImageSrc(child.attrGet('src')) === null) {
      segment.push(asText(state, child, false));
    } else {
      flush();
      const image = new state.Token('image', 'img', 0);
      image.attrs = [
        ['src', child.attrGet('src') ?? ''],
        ['title', child.attrGet('title') ?? ''],
      ];
      image.content = altText(child);
      image.block = true;
      image.hidden = open.hidden;
      image.map = open.map;
      out.push(image);
    }
  }
  flush();
  return out;
}

function cloneToken(state: CoreState, token: Token): Token {
  const copy = new state.Token(token.type, token.tag, token.nesting);
  Object.assign(copy, token);
  return copy;
}

/** A segment without the line breaks and spaces left at its ends by the images taken out. */
function trimmed(segment: Token[]): Token[] {
  const kept = [...segment];
  const isBreak = (token: Token | undefined) => token?.type === 'softbreak' || token?.type === 'hardbreak';
  while (isBreak(kept[0]) || (kept[0]?.type === 'text' && kept[0].content.trim() === '')) kept.shift();
  const blankText = (token: Token | undefined) => token?.type === 'text' && token.content.trim() === '';
  while (isBreak(kept.at(-1)) || blankText(kept.at(-1))) kept.pop();
  if (kept[0]?.type === 'text') kept[0].content = kept[0].content.trimStart();
  const last = kept.at(-1);
  if (last?.type === 'text') last.content = last.content.trimEnd();
  return kept;
}

/** An image as text: its alt text alone, or (`source`) the Markdown it was written as. */
function asText(state: CoreState, image: Token, altOnly: boolean): Token {
  const text = new state.Token('text', '', 0);
  const alt = altText(image);
  const title = image.attrGet('title');
  text.content = altOnly ? alt : `![${alt}](${image.attrGet('src') ?? ''}${title ? ` "${title}"` : ''})`;
  return text;
}

/** The plain text of an image's description (markdown-it parses it as inline Markdown). */
function altText(image: Token): string {
  if (!image.children) return image.content;
  return image.children.map((child) => (child.type === 'softbreak' || child.type === 'hardbreak' ? ' ' : child.content)).join('');
}

/** IMG2: an image block as Markdown, `![alt](src "title")`; one whose address IMG1 refuses as its alt text. */
export function writeImage(state: MarkdownSerializerState, node: Node): void {
  const src = safeImageSrc(node.attrs.src);
  const alt = typeof node.attrs.alt === 'string' ? node.attrs.alt : '';
  if (src === null) {
    state.text(alt);
  } else {
    const title = typeof node.attrs.title === 'string' && node.attrs.title !== '' ? ` "${node.attrs.title.replace(/["\\]/g, '\\$&')}"` : '';
    state.write(`![${escapeAlt(alt)}](${src.replace(/[()]/g, '\\$&')}${title})`);
  }
  state.closeBlock(node);
}

/**
 * An image's alt text as Markdown: every ASCII punctuation character that Markdown may read as
 * syntax is escaped, wherever it stands, since markdown-it keeps only the plain text of the alt
 * (an escape the serializer's own `esc` leaves out, say in `__0__`, would read back as emphasis).
 */
function escapeAlt(alt: string): string {
  return alt.replace(/\s+/g, ' ').replace(/[\\`*_{}[\]()#+\-.!|<>~&]/g, '\\$&');
}
