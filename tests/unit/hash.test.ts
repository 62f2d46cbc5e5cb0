import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { contentHash, joinedContentHash } from '../../shared/model/hash.ts';

/*
 * Block hashes are stored (pending deletes keep the hash the run read) and compared with the
 * `expectHash` agents send, so the hash of a text never changes: the implementation is checked
 * against cyrb53 written plainly, with the 53-bit value printed by Number#toString(16).
 */

const seed = process.env.TANDEM_SEED ? Number(process.env.TANDEM_SEED) : undefined;

function cyrb53(text: string, hashSeed = 0): string {
  let h1 = 0xdeadbeef ^ hashSeed;
  let h2 = 0x41c6ce57 ^ hashSeed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

describe('contentHash', () => {
  it('is cyrb53 in 14 hex digits, for any text and seed', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer(), (text, hashSeed) => {
        expect(contentHash(text, hashSeed)).toBe(cyrb53(text, hashSeed));
      }),
      { seed, numRuns: 3000 },
    );
    expect(contentHash('')).toBe(cyrb53(''));
    expect(contentHash('paragraph\nAlpha')).toMatch(/^[0-9a-f]{14}$/);
  });

  it('of a text in two pieces is the hash of the joined text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (head, text) => {
        expect(joinedContentHash(head, text)).toBe(contentHash(head + text));
      }),
      { seed, numRuns: 1000 },
    );
  });
});
