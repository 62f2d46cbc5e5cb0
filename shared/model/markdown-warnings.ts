import MarkdownIt from 'markdown-it';
import { isSafeLinkHref } from './safe-url.ts';
import { isSafeImageSrc } from './image-src.ts';

/**
 * CAT6: what a Markdown import cannot keep, said instead of dropped silently. The schema has no
 * images whose address IMG1 refuses: such an image is kept as the text of its source. GFM tables
 * are kept as tables (markdown.ts). This tokenizer only looks; it reads what the importing one
 * (markdown.ts) reads.
 */
const looker = MarkdownIt('commonmark', { html: false }).enable(['table', 'strikethrough']);
looker.validateLink = isSafeLinkHref;

export function markdownImportWarnings(markdown: string): string[] {
  // An image is written `![…`: Markdown without those two characters together has none, and need not be parsed again.
  return markdown.includes('![') ? imageWarnings(refusedImageAlts(markdown)) : [];
}

/** The alt texts of the images of `markdown` whose address IMG1 refuses. */
export function refusedImageAlts(markdown: string): string[] {
  const images: string[] = [];
  const visit = (tokens: ReturnType<typeof looker.parse>) => {
    for (const token of tokens) {
      if (token.type === 'image' && !isSafeImageSrc(token.attrGet('src'))) images.push(token.content);
      if (token.children) visit(token.children);
    }
  };
  visit(looker.parse(markdown, {}));
  return images;
}

/** HTML import (server/docs/html-import.ts) keeps a table inside a table's cell as the text of its cells and says so. */
export function tableWarnings(count: number): string[] {
  if (count === 0) return [];
  return [`${count === 1 ? 'A table inside a table cell was kept as the text of its cells' : `${count} tables inside table cells were kept as the text of their cells`}: a cell holds text only.`];
}

/** IMG1: images whose address is refused (Markdown keeps them as the text of their source, HTML leaves them out). */
export function imageWarnings(alts: readonly string[]): string[] {
  if (alts.length === 0) return [];
  const named = alts.filter((alt) => alt.trim()).map((alt) => `“${alt.trim().slice(0, 80)}”`);
  const which = named.length ? ` (${named.slice(0, 5).join(', ')}${named.length > 5 ? ', …' : ''})` : '';
  return [`${alts.length === 1 ? 'An image was' : `${alts.length} images were`} not kept${which}: an image must come from an https address or be uploaded.`];
}
