const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * A random id of `length` base-36 characters from the platform's CSPRNG (Web Crypto, present
 * in browsers and in Node 20).
 */
export function randomId(length = 10): string {
  const bytes = new Uint8Array(length);
  globalThis.crypto.getRandomValues(bytes);
  let id = '';
  for (const byte of bytes) id += alphabet[byte % alphabet.length];
  return id;
}
