import { createHmac } from 'node:crypto';
import type { ClaimsInput } from '../../server/auth/tokens.ts';
import { newTokenId } from '../../server/auth/tokens.ts';
import { readKeys } from '../../server/auth/keys.ts';
import { parseClaims } from '../../shared/protocol/claims.ts';

/**
 * Signs a token synchronously, as the server's jose signer would (a compact HS256 JWS with the
 * data directory's newest key as `kid`), so that tests can make tokens inline. The server only
 * ever signs through jose (server/auth/tokens.ts); its verifier accepting these tokens is part
 * of what the tests show: they are standard JWTs.
 */
export function signTestToken(dataDir: string, input: ClaimsInput): string {
  const claims = parseClaims({ ...input, iat: input.iat ?? Math.floor(Date.now() / 1000), jti: input.jti ?? newTokenId() });
  if (!claims) throw new RangeError('Token claims are malformed');
  const key = readKeys(dataDir).at(-1)!;
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signingInput = `${encode({ alg: 'HS256', typ: 'JWT', kid: key.kid })}.${encode(claims)}`;
  return `${signingInput}.${createHmac('sha256', key.secret).update(signingInput).digest('base64url')}`;
}
