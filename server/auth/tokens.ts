import { errors, jwtVerify, SignJWT, type JWTHeaderParameters } from 'jose';
import { parseClaims, type Claims } from '../../shared/protocol/claims.ts';
import { randomId } from '../../shared/model/ids.ts';
import type { KeyRing } from './keys.ts';

/**
 * Tokens are JWTs (RFC 7519) signed with HS256 by jose: header `{alg: "HS256", typ: "JWT",
 * kid}`, payload the Claims (shared/protocol/claims.ts) with `iat`, a unique `jti` and, unless the
 * token never expires, `exp`. The claims are readable without a key (the browser reads its
 * name and role from them); only a holder of a kept key makes a token that verifies.
 */

export type ClaimsInput = Omit<Claims, 'iat' | 'exp' | 'jti'> & {
  /** Issued at, seconds since the epoch; now when absent. */
  iat?: number;
  /** Expires at, seconds since the epoch; the token never expires when absent. */
  exp?: number;
  /** The token's id; a fresh random one when absent. */
  jti?: string;
};

/** Why a token was refused: malformed or not signed by a kept key, past its `exp`, or revoked. */
export type TokenRefusal = 'invalid' | 'expired' | 'revoked';

export type TokenCheck = { ok: true; claims: Claims } | { ok: false; reason: TokenRefusal };

/** Verifies a token for the server: one function every entry point (HTTP, WebSocket) calls. */
export type TokenVerifier = (token: unknown) => Promise<TokenCheck>;

const maxTokenLength = 4096;

/** Signs `input` with the newest key; throws a RangeError when it does not have the shape of Claims. */
export async function signToken(keys: KeyRing, input: ClaimsInput): Promise<string> {
  const claims = parseClaims({ ...input, iat: input.iat ?? Math.floor(Date.now() / 1000), jti: input.jti ?? newTokenId() });
  if (!claims) throw new RangeError('Token claims are malformed');
  const key = keys.newest();
  return new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: key.kid }).sign(key.secret);
}

/**
 * TOKEN1–TOKEN3: the claims of `token` when a kept key signed it (HS256 only, found by `kid`), its claims have
 * the shape of Claims with a `jti`, it has not expired and `isRevoked` says no; else the reason.
 */
export async function verifyToken(
  keys: KeyRing,
  token: unknown,
  isRevoked: (jti: string) => Promise<boolean> | boolean = () => false,
): Promise<TokenCheck> {
  if (typeof token !== 'string' || token.length === 0 || token.length > maxTokenLength) return refuse('invalid');
  if (!hasCanonicalSignature(token)) return refuse('invalid');
  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(token, (header: JWTHeaderParameters) => keyFor(keys, header), {
      algorithms: ['HS256'],
      typ: 'JWT',
      requiredClaims: ['iat', 'jti'],
    }));
  } catch (error) {
    // TOKEN2: only a token that verifies is called expired.
    return refuse(error instanceof errors.JWTExpired ? 'expired' : 'invalid');
  }
  const claims = parseClaims(payload);
  if (!claims?.jti) return refuse('invalid');
  if (await isRevoked(claims.jti)) return refuse('revoked');
  return { ok: true, claims };
}

/**
 * TOKEN1: the last character of a base64url signature carries two unused bits that decoders
 * ignore, so one signature has four spellings; only the canonical one is accepted, and a token
 * has exactly one form.
 */
function hasCanonicalSignature(token: string): boolean {
  const signature = token.slice(token.lastIndexOf('.') + 1);
  return Buffer.from(signature, 'base64url').toString('base64url') === signature;
}

/** A token id: 20 base-36 characters (about 103 bits). */
export function newTokenId(): string {
  return randomId(20);
}

function keyFor(keys: KeyRing, header: JWTHeaderParameters): Uint8Array {
  const key = typeof header.kid === 'string' ? keys.find(header.kid) : undefined;
  if (!key) throw new errors.JWSSignatureVerificationFailed('Unknown key id');
  return key.secret;
}

function refuse(reason: TokenRefusal): TokenCheck {
  return { ok: false, reason };
}
