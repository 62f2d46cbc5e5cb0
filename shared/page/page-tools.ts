import createDOMPurify, { type DOMPurify, type WindowLike } from 'dompurify';

/**
 * The DOM a page is read and written with (PAGE1). `shared/` has no DOM of its own: the browser
 * passes its `window`, the server a jsdom window (server/pages/page-window.ts). Everything in
 * shared/page/ works through these tools, so both sides sanitize, parse and serialize alike.
 */
export interface PageTools {
  document: Document;
  /**
   * `html` parsed as a template's content (inert: nothing loads or runs, table parts parse
   * outside a table) and sanitized in place by DOMPurify with Tandem's page configuration.
   */
  sanitize(html: string): DocumentFragment;
}

/** The attribute that names an element of a page. */
export const elementIdAttribute = 'data-tandem-id';

/** Element ids: the same alphabet and length limit as block ids. */
export const elementIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * PAGE2: what survives sanitizing. DOMPurify's defaults (no script, no event handler, no
 * `javascript:`, SVG and MathML reduced to their safe parts) plus: no frames, objects, forms,
 * `<base>`, `<meta>` or `<link>`; no `srcdoc`; URLs only `http:`, `https:`, `mailto:`, fragments
 * and relative paths (DOMPurify still lets `data:` images through, which run nothing).
 */
const config = {
  FORBID_TAGS: ['iframe', 'frame', 'frameset', 'object', 'embed', 'form', 'base', 'meta', 'link', 'portal', 'noscript', 'template'],
  FORBID_ATTR: ['srcdoc', 'formaction', 'action', 'ping', 'xlink:href'],
  ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i,
};

/** How the server reads pages (the browser passes none of it). */
export interface PageToolsOptions {
  /**
   * Parse with the window's DOMParser, as a template in a document of its own, instead of a
   * template's `innerHTML`: the same tree (both parse the markup as a template's content, with
   * scripting off in jsdom), but jsdom's `innerHTML` moves every node it parsed into place one
   * at a time, which costs it time in the number of siblings each time (quadratic in a wide
   * page). Markup that closes the template early is parsed the `innerHTML` way, and so is
   * markup under 16 KiB, for which making a document costs more than it saves.
   */
  parseAsDocument?: boolean;
  /** Called with the parsed, not yet sanitized content; may throw to refuse it (the limits). */
  inspect?: (content: DocumentFragment) => void;
  /** Called with the markup before it is parsed; may throw to refuse it. */
  inspectSource?: (html: string) => void;
}

export function createPageTools(window: WindowLike & { document: Document }, options: PageToolsOptions = {}): PageTools {
  const purify: DOMPurify = createDOMPurify(window);
  if (!purify.isSupported) throw new Error('This DOM cannot run DOMPurify; pages cannot be sanitized with it.');
  const document = window.document;
  const Parser = (window as unknown as { DOMParser?: typeof DOMParser }).DOMParser;
  const parse = (html: string): DocumentFragment => {
    if (options.parseAsDocument && Parser && html.length >= largeMarkup) {
      const parsed = parseInOwnDocument(new Parser(), html);
      if (parsed) return document.adoptNode(parsed);
    }
    const template = document.createElement('template');
    template.innerHTML = html;
    return template.content;
  };
  return {
    document,
    sanitize(html) {
      options.inspectSource?.(html);
      const content = parse(html);
      options.inspect?.(content);
      const holder = document.createElement('div');
      // DOMPurify checks the root as it checks any element, and an element without element
      // children whose text looks like markup (`x<t` beside a comment) is one it removes, which
      // it cannot do to the root in place: it throws. An element child first keeps the root out
      // of that check; what the page holds is checked node by node as always.
      const firstChild = document.createElement('span');
      holder.append(firstChild, content);
      purify.sanitize(holder, { ...config, IN_PLACE: true });
      firstChild.remove();
      // A large page is moved out of a copy: DOMPurify asked the holder for its childNodes, a live
      // list that jsdom rebuilds at every change of the holder; the copy has none.
      const from = html.length >= largeMarkup ? holder.cloneNode(true) : holder;
      const fragment = document.createDocumentFragment();
      while (from.firstChild) fragment.appendChild(from.firstChild);
      return fragment;
    },
  };
}

/** Markup from which on (in UTF-16 units) the server parses in a document of its own and moves out of a copy. */
const largeMarkup = 16 * 1024;

let sentinels = 0;

/**
 * `html` parsed as the content of a template that is alone in a document of its own, or null
 * when the markup does not stay inside it (an end tag of the template, an element whose text
 * runs to the end): then only the template's `innerHTML` parses it as it would be parsed alone.
 */
function parseInOwnDocument(parser: DOMParser, html: string): DocumentFragment | null {
  const sentinel = `tandem-end-${++sentinels}`;
  const parsed = parser.parseFromString(`<template>${html}</template><i id="${sentinel}"></i>`, 'text/html');
  const template = parsed.head.firstChild;
  const end = parsed.body.firstChild;
  const alone =
    parsed.head.childNodes.length === 1 &&
    template !== null &&
    template.nodeName === 'TEMPLATE' &&
    parsed.body.childNodes.length === 1 &&
    end !== null &&
    end.nodeName === 'I' &&
    (end as Element).attributes.length === 1 &&
    (end as Element).id === sentinel &&
    !end.hasChildNodes();
  return alone ? (template as HTMLTemplateElement).content : null;
}
