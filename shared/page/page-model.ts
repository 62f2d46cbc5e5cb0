import { contentHash } from '../model/hash.ts';
import { elementIdAttribute, elementIdPattern, type PageTools } from './page-tools.ts';

/**
 * A page's source and its elements (PAGE1, PAGE3). The source is sanitized HTML (a body's
 * content) in which every element carries a `data-tandem-id`; it lives in the `html` Y.Text of
 * the document (shared/model/doc-layout.ts). Reading always sanitizes again, so whatever a peer
 * wrote into the Y.Text, what is shown, listed or changed is sanitized.
 */

/** One element as agents and people address it. */
export interface PageElement {
  id: string;
  /** Lower-case tag name. */
  tag: string;
  /** Its text, white space collapsed, at most `maxElementText` characters. */
  text: string;
  /** `contentHash` of its serialized HTML: what `expectHash` proves the agent read. */
  hash: string;
}

export const maxElementText = 500;

/** The sanitized page, parsed into an inert fragment. */
export interface ParsedPage {
  root: DocumentFragment;
  /** The first element carrying each id, in document order. */
  byId: Map<string, Element>;
}

export function parsePage(tools: PageTools, source: string): ParsedPage {
  const root = tools.sanitize(source);
  const byId = new Map<string, Element>();
  for (const element of Array.from(root.querySelectorAll('*'))) {
    const id = element.getAttribute(elementIdAttribute);
    if (id !== null && elementIdPattern.test(id) && !byId.has(id)) byId.set(id, element);
  }
  return { root, byId };
}

export function serializePage(tools: PageTools, page: ParsedPage): string {
  return tools.serialize(page.root);
}

/**
 * PAGE1: the source of a new page: `html` sanitized, every element given an id. An element
 * keeps an id it already carries when it is well formed and not taken by an earlier element;
 * every other element gets `makeId()`.
 */
export function normalizePage(tools: PageTools, html: string, makeId: () => string): string {
  // The serialization of a parsed page can parse into another tree: misnested tags build trees
  // no markup builds (a heading inside a heading, which the parser closes when it reads the
  // markup back), and the parser clones formatting elements (with their ids) when it repairs
  // them. So the source is normalized again until it reads back as itself.
  let source = html;
  for (let pass = 1; ; pass++) {
    const page = parsePage(tools, source);
    giveIds(page.root, new Set(), makeId, () => true);
    const next = serializePage(tools, page);
    if (next === source || pass === maxNormalizePasses) return next;
    source = next;
  }
}

/** Passes of `normalizePage` at most: every page tried (15,000 generated ones) read back as itself by the third. */
const maxNormalizePasses = 4;

/**
 * Gives ids to the elements under `root` (itself included when it is an element): an element
 * keeps its id when `mayKeep(id)` and the id is not in `taken`; `taken` grows with every id given.
 */
export function giveIds(root: ParentNode, taken: Set<string>, makeId: () => string, mayKeep: (id: string) => boolean): void {
  const elements: Element[] = 'tagName' in root ? [root as Element] : [];
  elements.push(...Array.from(root.querySelectorAll('*')));
  for (const element of elements) {
    const id = element.getAttribute(elementIdAttribute);
    if (id !== null && elementIdPattern.test(id) && !taken.has(id) && mayKeep(id)) {
      taken.add(id);
      continue;
    }
    let fresh = makeId();
    while (taken.has(fresh)) fresh = makeId();
    taken.add(fresh);
    element.setAttribute(elementIdAttribute, fresh);
  }
}

/** PAGE3: every element of the source that carries an id, in document order. */
export function readElements(tools: PageTools, source: string): PageElement[] {
  return Array.from(parsePage(tools, source).byId.values(), elementView);
}

export function elementView(element: Element): PageElement {
  const id = element.getAttribute(elementIdAttribute) ?? '';
  const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim();
  return {
    id,
    tag: element.tagName.toLowerCase(),
    text: text.length <= maxElementText ? text : text.slice(0, maxElementText - 1) + '…',
    hash: elementHash(element),
  };
}

export function elementHash(element: Element): string {
  return contentHash(element.outerHTML);
}

/**
 * Where the start tag of the element `id` begins and ends in the raw `source` (the Y.Text's
 * string), or null. Annotations on a page anchor to this range of the Y.Text, so that their
 * pin follows the element through edits of the source.
 */
export function elementRangeInSource(source: string, id: string): { from: number; to: number } | null {
  if (!elementIdPattern.test(id)) return null;
  const needle = ` ${elementIdAttribute}="${id}"`;
  for (let at = source.indexOf(needle); at >= 0; at = source.indexOf(needle, at + 1)) {
    const from = source.lastIndexOf('<', at);
    // Inside a tag: no `>` between its `<` and the attribute (text would have one before it).
    if (from < 0 || source.lastIndexOf('>', at) > from) continue;
    const to = source.indexOf('>', at);
    if (to >= 0) return { from, to: to + 1 };
  }
  return null;
}
