/**
 * Which link targets Tandem keeps. A link is written by one person or agent and clicked by
 * everyone who reads the document, so only targets that navigate and cannot run script pass:
 * `http:`, `https:`, `mailto:` and relative references (they resolve against the page, which is
 * http or https; `//host/path` is an http(s) link too).
 *
 * The check parses with the WHATWG URL parser, the one the browser applies to `<a href>` on a
 * click: it drops leading and trailing C0 controls and spaces and every tab and newline, and
 * lowercases the scheme, so `java\nscript:`, `\x01javascript:` and `JaVaScRiPt:` are seen as the
 * `javascript:` they become. Character references (`&#x6A;`) are no concern at this level: the
 * HTML parser and markdown-it decode them before a string reaches this check.
 */

const allowedProtocols: ReadonlySet<string> = new Set(['http:', 'https:', 'mailto:']);

/** Any http(s) base gives a relative reference the same scheme the page gives it. */
const checkBase = 'https://tandem.invalid/';

/** LINK1: `href` as it is when it is a link target Tandem keeps, else null (a non-string too). */
export function safeLinkHref(href: unknown): string | null {
  if (typeof href !== 'string') return null;
  let url: URL;
  try {
    url = new URL(href, checkBase);
  } catch {
    return null;
  }
  return allowedProtocols.has(url.protocol) ? href : null;
}

export function isSafeLinkHref(href: unknown): href is string {
  return safeLinkHref(href) !== null;
}

/** What a person is told when the address they gave is refused (LINK1). */
export const refusedLinkMessage = 'Links can only go to http, https or mailto addresses, or to a page of this site.';

/** A host name with a dot, an optional port, then the end or a path, query or fragment. */
const bareHost = /^[\w-]+(\.[\w-]+)+(:\d+)?([/?#]|$)/;

export type LinkAddress = { ok: true; href: string } | { ok: false; message: string };

/**
 * LINK4: the target of an address a person typed into the link box, or why it is refused. A
 * bare host name (`example.com/page`) is taken as the https address people mean rather than as
 * a relative reference to a page of this site; the empty string is no address (the caller
 * removes the link).
 */
export function linkAddressFromInput(input: string): LinkAddress {
  const typed = input.trim();
  if (typed === '') return { ok: false, message: 'Type an address for the link.' };
  const href = bareHost.test(typed) ? `https://${typed}` : typed;
  return isSafeLinkHref(href) ? { ok: true, href } : { ok: false, message: refusedLinkMessage };
}

/**
 * LINK5: the URL that pasted text is, when it is one absolute `http:`, `https:` or `mailto:`
 * address and nothing else (surrounding white space aside); else null. Relative references are
 * not URLs here: a pasted word must not turn the selection into a link to a page of this site.
 */
export function pastedUrl(text: string): string | null {
  const candidate = text.trim();
  if (candidate === '' || /\s/.test(candidate)) return null;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return null;
  }
  if (url.protocol === 'mailto:') return url.pathname !== '' ? safeLinkHref(candidate) : null;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return url.hostname !== '' && /^https?:\/\//i.test(candidate) ? safeLinkHref(candidate) : null;
}
