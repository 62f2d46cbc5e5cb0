import { Rejection } from '../../shared/protocol/rejection.ts';
import type { TokenRefusal } from '../auth/tokens.ts';

export const unauthorized = () =>
  new Rejection(401, 'UNAUTHORIZED', 'Send a valid token as "Authorization: Bearer TOKEN".');

/** 401 for a refused token: `UNAUTHORIZED` (missing, malformed, forged), `TOKEN_EXPIRED`, `TOKEN_REVOKED`. */
export function tokenRefused(reason: TokenRefusal): Rejection {
  if (reason === 'expired') return new Rejection(401, 'TOKEN_EXPIRED', 'Your link has expired — ask for a new one.');
  if (reason === 'revoked') return new Rejection(401, 'TOKEN_REVOKED', 'This token has been revoked — ask for a new one.');
  return unauthorized();
}

export const forbidden = (message = 'Your token does not allow this.') => new Rejection(403, 'FORBIDDEN', message);

export const notFound = (message = 'There is nothing here.') => new Rejection(404, 'NOT_FOUND', message);

/** CAT3: the document is in the trash; only its restore reaches it. */
export const inTrash = () => new Rejection(410, 'IN_TRASH', 'This document is in the trash. Restore it to open it.');

export const invalidBody = (message: string) => new Rejection(422, 'INVALID_BODY', message);
