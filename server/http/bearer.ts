import type { IncomingMessage } from 'node:http';
import type { Claims } from '../../shared/protocol/claims.ts';
import type { TokenVerifier } from '../auth/tokens.ts';
import { tokenRefused } from './api-error.ts';

/**
 * The principal of a request's `Authorization: Bearer TOKEN`; throws Rejection 401
 * (`UNAUTHORIZED`, `TOKEN_EXPIRED` or `TOKEN_REVOKED`) without a valid one.
 */
export async function principalOf(req: IncomingMessage, verify: TokenVerifier): Promise<Claims> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  const check = await verify(match?.[1]);
  if (!check.ok) throw tokenRefused(check.reason);
  return check.claims;
}
