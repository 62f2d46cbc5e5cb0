/**
 * IMG5: the type of an uploaded image, read from its first bytes (its magic number), never from
 * the name or the Content-Type it came with. Only PNG, JPEG, GIF and WebP are images here: SVG
 * is markup that can run script, and anything else is no image a browser shows as one.
 */

export const imageTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageType = (typeof imageTypes)[number];

/** IMG5: the most bytes an uploaded image may have (10 MiB). */
export const maxImageBytes = 10 * 1024 * 1024;

const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const jpeg = [0xff, 0xd8, 0xff];

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (bytes.length < at + prefix.length) return false;
  return prefix.every((byte, index) => bytes[at + index] === byte);
}

function ascii(text: string): number[] {
  return [...text].map((char) => char.charCodeAt(0));
}

/** The image type `bytes` start with, or null when they are none of the four. */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  if (startsWith(bytes, png)) return 'image/png';
  if (startsWith(bytes, jpeg)) return 'image/jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  return null;
}

/**
 * The width and height in pixels that an image's header states, for the formats a Word
 * document embeds (PNG, JPEG, GIF); null when the header cannot be read.
 */
export function imageSize(bytes: Uint8Array, type: ImageType): { width: number; height: number } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (type === 'image/png') return bytes.length >= 24 ? positive(view.getUint32(16), view.getUint32(20)) : null;
  if (type === 'image/gif') return bytes.length >= 10 ? positive(view.getUint16(6, true), view.getUint16(8, true)) : null;
  if (type === 'image/jpeg') return jpegSize(view);
  return null;
}

/** Walks the JPEG segments to the first start-of-frame marker, which holds the size. */
function jpegSize(view: DataView): { width: number; height: number } | null {
  let at = 2;
  while (at + 9 < view.byteLength) {
    if (view.getUint8(at) !== 0xff) return null;
    const marker = view.getUint8(at + 1);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return positive(view.getUint16(at + 7), view.getUint16(at + 5));
    at += 2 + view.getUint16(at + 2);
  }
  return null;
}

function positive(width: number, height: number): { width: number; height: number } | null {
  return width > 0 && height > 0 ? { width, height } : null;
}
