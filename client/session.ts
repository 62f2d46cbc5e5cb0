import { decodeClaims, hasExpired, type Claims, type Role } from '../shared/protocol/claims.ts';
import { may } from '../shared/protocol/permissions.ts';
import { deviceKeys, readDevices, writeDevice, writeDevices, type DeviceKey } from './device-store.ts';

export type { Claims, Role };

export interface Session {
  token: string;
  claims: Claims;
  /**
   * The name others see in presence; the token's `name` until the person picks another on this
   * device. Annotations always carry the token's `name` (NOTES9).
   */
  name: string;
  /** A `#rrggbb` colour (y-prosemirror accepts no other form) chosen once per device. */
  color: string;
}

const palette = ['#c2185b', '#1565c0', '#2e7d32', '#6a1b9a', '#ad5700', '#00838f', '#b71c1c', '#4527a0'];

export function canEditText(role: Role): boolean {
  return may(role, 'text.write');
}

/** Whether the role may write `<id>/notes` (the server makes other roles' connection read-only). */
export function canWriteNotes(role: Role): boolean {
  return may(role, 'notes.comment');
}

/** What a person may do with annotations and runs in the UI (shared/protocol/permissions.ts). */
export interface AnnotationRights {
  comment: boolean;
  instruct: boolean;
  /** Reply to a comment. */
  reply: boolean;
  /** Resolve or reopen a comment. */
  resolve: boolean;
  /** Turn a comment into an instruction; edit and delete instructions; send them. */
  manageInstructions: boolean;
}

export function annotationRights(role: Role): AnnotationRights {
  const notes = may(role, 'notes.comment');
  const instruct = may(role, 'notes.instruct');
  return { comment: notes, instruct, reply: notes, resolve: may(role, 'notes.resolve'), manageInstructions: instruct };
}

export const noAnnotationRights: AnnotationRights = {
  comment: false,
  instruct: false,
  reply: false,
  resolve: false,
  manageInstructions: false,
};

/**
 * Takes `?token=` out of the address bar at once (before anything can log or share the URL)
 * and returns it. Call this before the first render.
 */
export function takeTokenFromAddress(): string | null {
  const url = new URL(location.href);
  const token = url.searchParams.get('token');
  if (token === null) return null;
  url.searchParams.delete('token');
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  return token;
}

/** What is wrong with a link's token, if anything: unreadable, or past its expiry. */
export function linkProblem(token: string | null): 'unreadable' | 'expired' | null {
  if (token === null) return null;
  const claims = decodeClaims(token);
  if (!claims) return 'unreadable';
  return hasExpired(claims, Date.now()) ? 'expired' : null;
}

/** Whether the session's token has expired (the app then asks for a new link). */
export function sessionExpired(session: Session): boolean {
  return hasExpired(session.claims, Date.now());
}

/**
 * The session of this device, and the token of the address bar when it would replace another
 * sign-in. A readable, unexpired token from the address bar signs in a device that has no
 * unexpired token of its own; a device already signed in keeps its token, and a different one
 * from the address bar comes back as `offered`, for the person to accept once the server has
 * checked it (TOKEN6, client/tandem-switch-prompt.ts): a link must not silently sign someone in
 * as whoever made it. `session` is null when no readable token is known; the stored token may
 * have expired (see `sessionExpired`).
 */
export async function openSession(fromAddress: string | null): Promise<{ session: Session | null; offered: string | null }> {
  const linked = fromAddress !== null && linkProblem(fromAddress) === null ? fromAddress : null;
  // One read and at most one write transaction: each is a round trip before the first paint.
  const [storedToken, storedColor, storedName] = await readDevices([deviceKeys.token, deviceKeys.color, deviceKeys.name]);
  const stored = typeof storedToken === 'string' ? storedToken : null;
  const storedClaims = stored ? decodeClaims(stored) : null;
  const signedIn = storedClaims !== null && !hasExpired(storedClaims, Date.now());
  const offered = signedIn && linked !== null && linked !== stored ? linked : null;
  const token = offered || !linked ? stored : linked;
  const claims = token ? decodeClaims(token) : null;
  if (!token || !claims) return { session: null, offered: null };

  const writes: [DeviceKey, unknown][] = [];
  const samePerson = storedClaims?.sub === claims.sub;
  if (token !== stored) writes.push([deviceKeys.token, token]);
  // Another person starts with their token's name, not the name the previous one chose here.
  if (!samePerson) writes.push([deviceKeys.name, '']);
  let color = typeof storedColor === 'string' && /^#[0-9a-f]{6}$/i.test(storedColor) ? storedColor : null;
  if (!color) {
    color = palette[Math.floor(Math.random() * palette.length)];
    writes.push([deviceKeys.color, color]);
  }
  if (writes.length > 0) await writeDevices(writes);
  const chosen = samePerson && typeof storedName === 'string' ? storedName : '';
  const name = chosen || claims.name || claims.sub;
  return { session: { token, claims, name, color }, offered };
}

/** Makes `token` this device's sign-in (the person accepted a link's token); another person's starts with the token's name. */
export async function switchSession(session: Session, token: string): Promise<void> {
  await writeDevices(samePrincipal(session, token) ? [[deviceKeys.token, token]] : [[deviceKeys.token, token], [deviceKeys.name, '']]);
}

/** Whether `token` signs in the same principal as `session` does: the same id, role and document. */
export function samePrincipal(session: Session, token: string): boolean {
  const claims = decodeClaims(token);
  return claims !== null && claims.sub === session.claims.sub && claims.role === session.claims.role && claims.doc === session.claims.doc;
}

/** Keeps the name a person chose on this device; an empty name returns to the token's. */
export async function saveName(session: Session, name: string): Promise<Session> {
  const trimmed = name.trim().slice(0, 60);
  await writeDevice(deviceKeys.name, trimmed);
  return { ...session, name: trimmed || session.claims.name || session.claims.sub };
}
