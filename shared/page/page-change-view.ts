import { elementIdAttribute } from './page-tools.ts';

/**
 * How the app shows a page's elements and a page run's changes to people (PAGE15): by their
 * text, as a reader sees the page, and by markup only where no text tells. Pure reads of
 * elements; `document` only parses (into a template: inert, nothing loads or runs).
 */

/** The names of elements that hold no text, by tag. */
const kinds: Readonly<Record<string, string>> = {
  img: 'image',
  picture: 'image',
  svg: 'drawing',
  canvas: 'drawing',
  video: 'video',
  audio: 'audio',
  hr: 'divider',
  br: 'line break',
};

/**
 * An element without text named by its kind and, when it has one, its alt text or title:
 * `image “A cat”`, `divider`, `div element`.
 */
export function elementName(element: Element): string {
  const tag = element.tagName.toLowerCase();
  const kind = kinds[tag] ?? `${tag} element`;
  const alt = (element.getAttribute('alt') ?? element.getAttribute('title') ?? '').replace(/\s+/g, ' ').trim();
  return alt ? `${kind} “${alt}”` : kind;
}

/**
 * What the review diffs for a page change whose element HTML went from `before` to `after`
 * (null: none): the element's text when the text changed; otherwise its start tag (an
 * attribute changed); otherwise its markup. Element ids are left out: people never wrote them.
 */
export function pageChangeTexts(document: Document, before: string | null, after: string | null): { before: string; after: string } {
  const [old, now] = [parseElement(document, before), parseElement(document, after)];
  const text = (element: Element | null) => (element?.textContent ?? '').replace(/\s+/g, ' ').trim();
  if (text(old) !== text(now)) return { before: text(old), after: text(now) };
  const startTag = (element: Element | null) => (element ? startTagOf(withoutIds(element.cloneNode(false) as Element)) : '');
  if (startTag(old) !== startTag(now)) return { before: startTag(old), after: startTag(now) };
  const markup = (element: Element | null) => (element ? withoutIds(element).outerHTML : '');
  return { before: markup(old), after: markup(now) };
}

function parseElement(document: Document, html: string | null): Element | null {
  if (html === null) return null;
  const template = document.createElement('template');
  template.innerHTML = html;
  return template.content.firstElementChild;
}

/** The start tag as people read it: attribute values as they are, not escaped for a parser. */
function startTagOf(element: Element): string {
  const attributes = Array.from(element.attributes, (attribute) => ` ${attribute.name}="${attribute.value}"`);
  return `<${element.localName}${attributes.join('')}>`;
}

function withoutIds(element: Element): Element {
  const copy = element.cloneNode(true) as Element;
  for (const each of [copy, ...Array.from(copy.querySelectorAll(`[${elementIdAttribute}]`))]) each.removeAttribute(elementIdAttribute);
  return copy;
}
