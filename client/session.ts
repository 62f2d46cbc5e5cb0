import { decodeClaims, hasExpired, type Claims, type Role } from '../shared/protocol/claims.ts';
import { may } from '../shared/protocol/permissions.ts';
import { deviceKeys, readDevices, writeDevices } from './device-store.ts';
import { preferredColor } from './presence-colors.ts';

export type { Claims, Role };

export interface Session {
  token: string;
  claims: Claims;
  /** The name the server knows the person by: the token's (presence, cards, runs, versions alike). */
  name: string;
  /** The person's preferred `#rrggbb` colour, the same on every device (client/presence-colors.ts). */
  color: string;
}

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
  // One read and at most one write: each is a round trip before the first paint.
  const [storedToken] = await readDevices([deviceKeys.token]);
  const stored = typeof storedToken === 'string' ? storedToken : null;
  const storedClaims = stored ? decodeClaims(stored) : null;
  const signedIn = storedClaims !== null && !hasExpired(storedClaims, Date.now());
  const offered = signedIn && linked !== null && linked !== stored ? linked : null;
  const token = offered || !linked ? stored : linked;
  const claims = token ? decodeClaims(token) : null;
  if (!token || !claims) return { session: null, offered: null };
  if (token !== stored) await writeDevices([[deviceKeys.token, token]]);
  return { session: { token, claims, name: claims.name || claims.sub, color: preferredColor(claims.sub) }, offered };
}

/** Makes `token` this device's sign-in (the person accepted a link's token). */
export async function switchSession(token: string): Promise<void> {
  await writeDevices([[deviceKeys.token, token]]);
}

/** Makes `token`, minted for this person by an invite they joined (INV4), this device's sign-in. */
export async function signInWith(token: string): Promise<void> {
  await switchSession(token);
}

/** Whether `token` signs in the same principal as `session` does: the same id, role and document. */
export function samePrincipal(session: Session, token: string): boolean {
  const claims = decodeClaims(token);
  return claims !== null && claims.sub === session.claims.sub && claims.role === session.claims.role && claims.doc === session.claims.doc;
}
