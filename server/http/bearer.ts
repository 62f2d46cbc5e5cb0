import type { IncomingMessage } from 'node:http';
import type { Claims } from '../../shared/claims.ts';
import { verifyToken } from '../auth/tokens.ts';
import { unauthorized } from './api-error.ts';

/** The principal of a request's `Authorization: Bearer TOKEN`; throws Rejection 401 without one. */
export function principalOf(req: IncomingMessage, secret: Uint8Array): Claims {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  const principal = match ? verifyToken(secret, match[1]) : null;
  if (!principal) throw unauthorized();
  return principal;
}
