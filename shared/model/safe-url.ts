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
