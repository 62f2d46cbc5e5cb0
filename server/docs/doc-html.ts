import type { Mark, Node } from 'prosemirror-model';
import { safeLinkHref } from '../../shared/model/safe-url.ts';
import { cellAlign } from '../../shared/model/table-nodes.ts';
import { safeImageSrc } from '../../shared/model/image-src.ts';
import type { OwnImages } from './own-images.ts';

/**
 * CAT5: a text document as a standalone HTML page (`GET /api/docs/:id/html`). The markup is
 * written from the schema's nodes and marks, never from stored HTML, every text and attribute
 * escaped; a link keeps only a target shared/model/safe-url.ts accepts (LINK1), opened without
 * the page's opener or referrer; an image keeps only an address IMG1 accepts, and the document's
 * own images (`images`) are written into the page as `data:` URLs, so that the file shows them
 * wherever it is opened. Review marks and pending deletes are the caller's to remove.
 */
export function docToHtml(doc: Node, title: string, images: OwnImages = {}): string {
  return htmlPage(title, blocksHtml(doc, images));
}

/** A standalone page around `body`, markup already safe (written here, or sanitized). */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeText(title || 'Untitled')}</title>
</head>
<body>
${body}</body>
</html>
`;
}

/** The body markup of `node`'s children, one block a line. */
export function blocksHtml(node: Node, images: OwnImages = {}): string {
  let out = '';
  node.forEach((child) => {
    out += blockHtml(child, images) + '\n';
  });
  return out;
}

function blockHtml(node: Node, images: OwnImages): string {
  switch (node.type.name) {
    case 'paragraph':
      return `<p>${inlineHtml(node)}</p>`;
    case 'heading':
      return `<h${headingLevel(node)}>${inlineHtml(node)}</h${headingLevel(node)}>`;
    case 'blockquote':
      return `<blockquote>\n${blocksHtml(node, images)}</blockquote>`;
    case 'code_block': {
      const language = String(node.attrs.params ?? '').split(/\s/)[0];
      const cls = /^[\w+#-]+$/.test(language) ? ` class="language-${language}"` : '';
      return `<pre><code${cls}>${escapeText(node.textContent)}</code></pre>`;
    }
    case 'horizontal_rule':
      return '<hr>';
    case 'image':
      return imageHtml(node, images);
    case 'bullet_list':
      return `<ul>\n${blocksHtml(node, images)}</ul>`;
    case 'ordered_list': {
      const order = Number(node.attrs.order);
      return `<ol${Number.isInteger(order) && order !== 1 ? ` start="${order}"` : ''}>\n${blocksHtml(node, images)}</ol>`;
    }
    case 'list_item':
      return `<li>${blocksHtml(node).trimEnd()}</li>`;
    case 'table':
      return tableHtml(node);
    default:
      // A block this writer does not know keeps its text.
      return `<p>${escapeText(node.textContent)}</p>`;
  }
}

/** A table: its first row the header (`th`), alignment as an inline style of known values only. */
function tableHtml(node: Node): string {
  let rows = '';
  node.forEach((row) => {
    let cells = '';
    row.forEach((cell) => {
      const tag = cell.type.name === 'table_header' ? 'th' : 'td';
      const align = cellAlign(cell.attrs.align);
      cells += `<${tag}${align ? ` style="text-align: ${align}"` : ''}>${inlineHtml(cell)}</${tag}>`;
    });
    rows += `<tr>${cells}</tr>\n`;
  });
  return `<table>\n${rows}</table>`;
}

function imageHtml(node: Node, images: OwnImages): string {
  const src = safeImageSrc(node.attrs.src);
  const alt = typeof node.attrs.alt === 'string' ? node.attrs.alt : '';
  if (src === null) return `<p>${escapeText(alt)}</p>`;
  const own = images[src];
  const shown = own ? `data:${own.type};base64,${Buffer.from(own.bytes).toString('base64')}` : src;
  const title = typeof node.attrs.title === 'string' && node.attrs.title ? ` title="${escapeAttribute(node.attrs.title)}"` : '';
  return `<p><img src="${escapeAttribute(shown)}" alt="${escapeAttribute(alt)}"${title}></p>`;
}

function headingLevel(node: Node): number {
  const level = Number(node.attrs.level);
  return level >= 1 && level <= 6 ? level : 1;
}

const markTags: Record<string, string> = { strong: 'strong', em: 'em', code: 'code', strike: 's' };

/** Inline content: each text node wrapped in its marks, outermost the link. */
function inlineHtml(node: Node): string {
  let out = '';
  node.forEach((child) => {
    if (child.type.name === 'hard_break') {
      out += '<br>';
      return;
    }
    if (!child.isText) return;
    let html = escapeText(child.text ?? '');
    for (const mark of [...child.marks].reverse()) html = wrap(mark, html);
    out += html;
  });
  return out;
}

function wrap(mark: Mark, inner: string): string {
  if (mark.type.name === 'link') {
    const href = safeLinkHref(mark.attrs.href);
    if (href === null) return inner;
    const title = typeof mark.attrs.title === 'string' && mark.attrs.title ? ` title="${escapeAttribute(mark.attrs.title)}"` : '';
    return `<a href="${escapeAttribute(href)}"${title} rel="noopener noreferrer">${inner}</a>`;
  }
  const tag = markTags[mark.type.name];
  return tag ? `<${tag}>${inner}</${tag}>` : inner;
}

export function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;');
}
