import type { ServerResponse } from 'node:http';

/**
 * The Content-Security-Policy of every reply. Script only from the app's own files: no inline
 * script, no `javascript:` URLs, no event-handler attributes. `connect-src 'self'` also admits
 * the WebSocket at `/collab` on the same host and port (CSP Level 3 matches `ws:`/`wss:`
 * against `'self'`). Styles allow `'unsafe-inline'` because Lit's `styleMap` and y-prosemirror's
 * cursors write `style` attributes. `data:` images cover the page's empty icon. `blob:` images
 * are the document's own images (IMG3), which the editor loads with its token and shows as object
 * URLs. `https:` images are for images of text documents by address (IMG1) and for web pages
 * (PAGE9): a page's frame is a `srcdoc` document, which inherits this policy
 * beside its own, so this `img-src` bounds what a page may show. Nothing else of the app loads
 * an image from elsewhere, and an image runs nothing.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Headers sent with every HTTP reply: the app, its files, the API, errors and 404s alike.
 * `no-referrer` keeps a `?token=` sign-in URL out of the Referer of any link followed from it.
 */
export const securityHeaders: Readonly<Record<string, string>> = {
  'Content-Security-Policy': contentSecurityPolicy,
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

/** Sets the security headers on `res` before any handler writes its head (writeHead merges them). */
export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(securityHeaders)) res.setHeader(name, value);
}
