import createDOMPurify, { type DOMPurify, type WindowLike } from 'dompurify';

/**
 * The DOM a page is read and written with (PAGE1). `shared/` has no DOM of its own: the browser
 * passes its `window` (`createPageTools`, DOMPurify over the browser's own parser), the server
 * its page DOM (server/pages/page-tools.ts: parse5's tree and DOMPurify's rules, held to
 * DOMPurify by tests). Everything in shared/page/ works through these tools and the part of the
 * DOM both answer (attributes, text, cloning, replacing, `querySelectorAll('*')`, `outerHTML`).
 */
export interface PageTools {
  /**
   * `html` parsed as a template's content (inert: nothing loads or runs, table parts parse
   * outside a table) and sanitized with Tandem's page configuration (PAGE2, `pagePurifyConfig`).
   */
  sanitize(html: string): DocumentFragment;
  /** The HTML serialization of `root`'s children, as a template's `innerHTML` gives it. */
  serialize(root: DocumentFragment): string;
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
export const pagePurifyConfig = {
  FORBID_TAGS: ['iframe', 'frame', 'frameset', 'object', 'embed', 'form', 'base', 'meta', 'link', 'portal', 'noscript', 'template'],
  FORBID_ATTR: ['srcdoc', 'formaction', 'action', 'ping', 'xlink:href'],
  ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i,
};

/**
 * The page tools over a real DOM: the browser's `window` (the app), or jsdom's in tests and
 * benchmarks that hold the server's tools to DOMPurify.
 */
export function createPageTools(window: WindowLike & { document: Document }): PageTools {
  const purify: DOMPurify = createDOMPurify(window);
  if (!purify.isSupported) throw new Error('This DOM cannot run DOMPurify; pages cannot be sanitized with it.');
  const document = window.document;
  const parse = (html: string): DocumentFragment => {
    const template = document.createElement('template');
    template.innerHTML = html;
    return template.content;
  };
  return {
    serialize(root) {
      const template = document.createElement('template');
      template.content.append(root.cloneNode(true));
      return template.innerHTML;
    },
    sanitize(html) {
      const content = parse(html);
      const holder = document.createElement('div');
      // DOMPurify checks the root as it checks any element, and an element without element
      // children whose text looks like markup (`x<t` beside a comment) is one it removes, which
      // it cannot do to the root in place: it throws. An element child first keeps the root out
      // of that check; what the page holds is checked node by node as always.
      const firstChild = document.createElement('span');
      holder.append(firstChild, content);
      purify.sanitize(holder, { ...pagePurifyConfig, IN_PLACE: true });
      firstChild.remove();
      const fragment = document.createDocumentFragment();
      while (holder.firstChild) fragment.appendChild(holder.firstChild);
      return fragment;
    },
  };
}
