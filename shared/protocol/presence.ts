import { isRole, type Role } from './claims.ts';

/**
 * The awareness state a Tandem peer publishes in a document (PRES rules in PROTOCOL.md):
 * `user` says who is here, `cursor` (set by y-prosemirror's cursor plugin) where. The server
 * rewrites `user.name` and `user.role` from the connection's token and drops every other field;
 * the client renders only states that pass `readPresenceUser`.
 */
export interface PresenceUser {
  name: string;
  role: Role;
  /** `#rrggbb`; absent when the peer gave none or an invalid one. */
  color?: string;
  /** What the peer says it is doing (agents: `working on 2 instructions`). */
  status?: string;
}

export interface PresenceState {
  user: PresenceUser;
  /** y-prosemirror's relative positions of the selection, as Yjs JSON. */
  cursor?: { anchor: unknown; head: unknown };
}

/** One awareness state, as JSON, in UTF-8 bytes; a larger state is refused whole. */
export const maxPresenceStateBytes = 2048;

export const maxPresenceStatusLength = 200;

const colorPattern = /^#[0-9a-f]{6}$/i;

/** Whether `value` is a colour that is safe to put into CSS: exactly `#rrggbb`. */
export function isPresenceColor(value: unknown): value is string {
  return typeof value === 'string' && colorPattern.test(value);
}

/**
 * The state the server forwards for a peer that claims `state`, with identity taken from the
 * token: name and role from `identity`, colour only when valid, status trimmed, cursor only as
 * a pair of plain objects. Null when there is nothing to show or the result is too large.
 */
export function sanitizePresenceState(state: unknown, identity: { name: string; role: Role }): PresenceState | null {
  if (!isPlainObject(state)) return null;
  const claimed = isPlainObject(state.user) ? state.user : {};
  const user: PresenceUser = { name: identity.name, role: identity.role };
  if (isPresenceColor(claimed.color)) user.color = claimed.color.toLowerCase();
  const status = readStatus(claimed.status);
  if (status !== null) user.status = status;
  const sanitized: PresenceState = { user };
  const cursor = state.cursor;
  if (isPlainObject(cursor) && isPlainObject(cursor.anchor) && isPlainObject(cursor.head)) {
    sanitized.cursor = { anchor: cursor.anchor, head: cursor.head };
  }
  return utf8Length(JSON.stringify(sanitized)) <= maxPresenceStateBytes ? sanitized : null;
}

/**
 * The user of an awareness state as the client may render it, or null when the state has none:
 * name and status as plain strings, colour only when valid (else absent).
 */
export function readPresenceUser(state: unknown): PresenceUser | null {
  if (!isPlainObject(state) || !isPlainObject(state.user)) return null;
  const { name, role, color } = state.user;
  if (typeof name !== 'string' || name === '' || !isRole(role)) return null;
  const user: PresenceUser = { name: name.slice(0, 200), role };
  if (isPresenceColor(color)) user.color = color;
  const status = readStatus(state.user.status);
  if (status !== null) user.status = status;
  return user;
}

function readStatus(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const status = value.trim().slice(0, maxPresenceStatusLength);
  return status === '' ? null : status;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}
