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

export function createPageTools(window: WindowLike & { document: Document }): PageTools {
  const purify: DOMPurify = createDOMPurify(window);
  if (!purify.isSupported) throw new Error('This DOM cannot run DOMPurify; pages cannot be sanitized with it.');
  return {
    document: window.document,
    sanitize(html) {
      const template = window.document.createElement('template');
      template.innerHTML = html;
      const holder = window.document.createElement('div');
      // DOMPurify checks the root as it checks any element, and an element without element
      // children whose text looks like markup (`x<t` beside a comment) is one it removes, which
      // it cannot do to the root in place: it throws. An element child first keeps the root out
      // of that check; what the page holds is checked node by node as always.
      const firstChild = window.document.createElement('span');
      holder.append(firstChild, template.content);
      purify.sanitize(holder, { ...config, IN_PLACE: true });
      firstChild.remove();
      const fragment = window.document.createDocumentFragment();
      fragment.append(...Array.from(holder.childNodes));
      return fragment;
    },
  };
}
