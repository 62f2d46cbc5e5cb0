import { isDocId } from './doc-layout.ts';
import { isOpKind, type OpKind } from './op-kinds.ts';

/**
 * The claims a token carries. A token is `base64url(JSON claims).base64url(signature)`: the
 * browser decodes the claims to know who it is and what it may do; only the server verifies.
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
  ops?: OpKind[];
  /** Issued at, in seconds since the epoch. */
  iat: number;
}

const maxText = 200;

/** The claims in `value` with unknown fields dropped, or null when their shape is wrong. */
export function parseClaims(value: unknown): Claims | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { sub, name, role, doc, ops, iat } = value as Record<string, unknown>;
  if (!isShortText(sub) || sub === '' || !isShortText(name) || !isRole(role)) return null;
  if (typeof iat !== 'number' || !Number.isSafeInteger(iat) || iat < 0) return null;
  if (doc !== undefined && !isDocId(doc)) return null;
  if (ops !== undefined) {
    if (role !== 'agent' || !Array.isArray(ops) || !ops.every(isOpKind)) return null;
    if (new Set(ops).size !== ops.length) return null;
  }
  const claims: Claims = { sub, name, role, iat };
  if (doc !== undefined) claims.doc = doc;
  if (ops !== undefined) claims.ops = [...ops];
  return claims;
}

/** The claims of a token, read without verifying its signature (for display only). */
export function decodeClaims(token: string): Claims | null {
  const [payload, signature, ...rest] = token.split('.');
  if (!payload || !signature || rest.length > 0) return null;
  try {
    return parseClaims(JSON.parse(base64UrlToText(payload)));
  } catch {
    return null;
  }
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
