/**
 * A fast, stable, non-cryptographic 53-bit hash (cyrb53) as 14 hex digits. It names a block's
 * content so that an agent can say which version it read (`expectHash`); it protects against
 * staleness, not against an adversary.
 */
export function contentHash(text: string, seed = 0): string {
  return joinedContentHash('', text, seed);
}

/**
 * `contentHash(head + text)`, without building the joined string (a cons string that V8
 * would flatten, copying `text`, on the first character read).
 */
export function joinedContentHash(head: string, text: string, seed = 0): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < head.length; i++) {
    const ch = head.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  // The 53-bit value 2^32 * (h2 & 0x1fffff) + (h1 >>> 0) in hex, byte by byte: Number#toString(16)
  // of a value above 2^31 takes V8's slow path for doubles, as long as the rest of the hash.
  const high = 2097151 & h2;
  const low = h1 >>> 0;
  return hexByte[high >>> 16] + hexByte[(high >>> 8) & 255] + hexByte[high & 255] + hexByte[low >>> 24] + hexByte[(low >>> 16) & 255] + hexByte[(low >>> 8) & 255] + hexByte[low & 255];
}

const hexByte: string[] = [];
for (let byte = 0; byte < 256; byte++) hexByte.push(byte.toString(16).padStart(2, '0'));
