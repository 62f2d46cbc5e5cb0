import { isDocId } from '../model/doc-layout.ts';
import { isGrantableOp, type GrantableOp } from './grantable-ops.ts';

/**
 * The claims a token carries. A token is a JWT, `header.claims.signature` in base64url
 * (server/auth/tokens.ts): the browser decodes the claims to know who it is, what it may do and
 * until when; only the server verifies.
 */

export const roles = ['editor', 'commenter', 'viewer', 'agent'] as const;
export type Role = (typeof roles)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (roles as readonly string[]).includes(value);
}

export interface Claims {
  /** The principal's id. */
  sub: string;
  /** The principal's display name. */
  name: string;
  role: Role;
  /** When present, the token is good for this one document only. */
  doc?: string;
  /** Agents only: the op kinds the applier accepts from this agent (all when absent). */
  ops?: GrantableOp[];
  /** Issued at, in seconds since the epoch. */
  iat: number;
  /** Expires at, in seconds since the epoch; absent for a token that never expires. */
  exp?: number;
  /** The token's id, by which it can be revoked. Every token the server verifies has one. */
  jti?: string;
}

const maxText = 200;

/** The claims in `value` with unknown fields dropped, or null when their shape is wrong. */
export function parseClaims(value: unknown): Claims | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { sub, name, role, doc, ops, iat, exp, jti } = value as Record<string, unknown>;
  if (!isShortText(sub) || sub === '' || !isShortText(name) || !isRole(role)) return null;
  if (!isSeconds(iat) || (exp !== undefined && !isSeconds(exp))) return null;
  if (jti !== undefined && !isTokenId(jti)) return null;
  if (doc !== undefined && !isDocId(doc)) return null;
  if (ops !== undefined) {
    if (role !== 'agent' || !Array.isArray(ops) || !ops.every(isGrantableOp)) return null;
    if (new Set(ops).size !== ops.length) return null;
  }
  const claims: Claims = { sub, name, role, iat };
  if (doc !== undefined) claims.doc = doc;
  if (ops !== undefined) claims.ops = [...ops];
  if (exp !== undefined) claims.exp = exp as number;
  if (jti !== undefined) claims.jti = jti;
  return claims;
}

/** Whether `value` has the form of a token id (`jti`). */
export function isTokenId(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9A-Za-z_-]{1,64}$/.test(value);
}

/** Whether the token of `claims` has expired at `nowMs` (milliseconds since the epoch). */
export function hasExpired(claims: Claims, nowMs: number): boolean {
  return claims.exp !== undefined && claims.exp * 1000 <= nowMs;
}

/** The claims of a token, read without verifying its signature (for display only). */
export function decodeClaims(token: string): Claims | null {
  const [header, payload, signature, ...rest] = token.split('.');
  if (!header || !payload || !signature || rest.length > 0) return null;
  try {
    return parseClaims(JSON.parse(base64UrlToText(payload)));
  } catch {
    return null;
  }
}

function isSeconds(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isShortText(value: unknown): value is string {
  return typeof value === 'string' && value.length <= maxText;
}

function base64UrlToText(value: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(value)) throw new RangeError('Not base64url');
  const base64 = value.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  return new TextDecoder().decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
}
