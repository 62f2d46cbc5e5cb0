import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseClaims, type Claims } from '../../shared/claims.ts';

/**
 * Signed tokens: `base64url(JSON claims).base64url(HMAC-SHA256(secret, first part))`. The claims
 * are readable without the secret (see shared/claims.ts); only a holder of the secret can make
 * a token that verifies.
 */

export type ClaimsInput = Omit<Claims, 'iat'> & { iat?: number };

/** Signs `claims`; throws a RangeError when they do not have the shape of Claims. */
export function signToken(secret: Uint8Array, input: ClaimsInput): string {
  const claims = parseClaims({ ...input, iat: input.iat ?? Math.floor(Date.now() / 1000) });
  if (!claims) throw new RangeError('Token claims are malformed');
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return payload + '.' + sign(secret, payload).toString('base64url');
}

/** The claims of `token` if it was signed with `secret` and is well formed, else null. */
export function verifyToken(secret: Uint8Array, token: unknown): Claims | null {
  if (typeof token !== 'string' || token.length > 4096) return null;
  const parts = token.split('.');
  if (parts.length !== 2 || !isBase64Url(parts[0]) || !isBase64Url(parts[1])) return null;
  const [payload, signature] = parts;
  // Compared as text, not as decoded bytes: base64url's last character carries padding bits,
  // and a token must have exactly one accepted spelling.
  const expected = Buffer.from(sign(secret, payload).toString('base64url'));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    return parseClaims(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch {
    return null;
  }
}

function sign(secret: Uint8Array, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

function isBase64Url(value: string): boolean {
  return value.length > 0 && /^[A-Za-z0-9_-]+$/.test(value);
}
