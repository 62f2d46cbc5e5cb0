import { isDocId } from './doc-layout.ts';

/**
 * Which image addresses Tandem keeps (IMG1). An image loads the moment a document opens, for
 * everyone who reads it, so its address is held to less than a link's: an absolute `https:`
 * URL, or the address of an asset stored beside a document (`/api/docs/ID/assets/HASH`, IMG3).
 * No `http:` (mixed content), no `data:`, `blob:`, `javascript:` or other relative paths.
 *
 * As for links (shared/model/safe-url.ts), the address is read with the WHATWG URL parser, so
 * control characters, tabs and case cannot disguise a scheme.
 */

/** An asset's id: the hex SHA-256 of its bytes. */
export const assetIdPattern = /^[0-9a-f]{64}$/;

/** White space, control characters, angle brackets and backslashes. */
// eslint-disable-next-line no-control-regex -- control characters are among what an address may not hold
const unwritable = /[\s\x00-\x1f\x7f<>\\]/;

const assetPath = /^\/api\/docs\/([A-Za-z0-9_-]{1,64})\/assets\/([0-9a-f]{64})$/;

/** The address at which the asset `assetId` of document `docId` is served (IMG3). */
export function assetUrl(docId: string, assetId: string): string {
  return `/api/docs/${docId}/assets/${assetId}`;
}

/** The document and asset an address names when it is exactly an asset address, else null. */
export function parseAssetUrl(src: unknown): { docId: string; assetId: string } | null {
  if (typeof src !== 'string') return null;
  const match = assetPath.exec(src);
  if (!match || !isDocId(match[1])) return null;
  return { docId: match[1], assetId: match[2] };
}

/** IMG1: `src` as it is when Tandem keeps it as an image address, else null (a non-string too). */
export function safeImageSrc(src: unknown): string | null {
  if (typeof src !== 'string') return null;
  if (parseAssetUrl(src)) return src;
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    return null;
  }
  // An absolute https URL as written (`new URL` would accept `https:host` and `https:/host` too),
  // with nothing the parser would silently drop or Markdown would need to escape.
  return url.protocol === 'https:' && url.hostname !== '' && /^https:\/\//i.test(src) && !unwritable.test(src) ? src : null;
}

export function isSafeImageSrc(src: unknown): src is string {
  return safeImageSrc(src) !== null;
}

/** What a person is told when the address they gave for an image is refused (IMG1). */
export const refusedImageMessage = 'An image can only come from an https address or be uploaded into this document.';

/**
 * IMG4: the asset addresses among `srcs` that do not belong to document `docId` (an asset of
 * another document, which an agent must not invent or borrow). Other addresses are not asked
 * about here.
 */
export function foreignAssetSrcs(srcs: Iterable<string>, docId: string): string[] {
  const foreign: string[] = [];
  for (const src of srcs) {
    const asset = parseAssetUrl(src);
    if (asset && asset.docId !== docId) foreign.push(src);
  }
  return foreign;
}
