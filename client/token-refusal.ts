import { denialReasons, tokenEndedCloseCode } from '../shared/protocol/denials.ts';

/**
 * Why the server refused this device's token for a document: its signature does not verify
 * (`invalid`), it has expired, it was revoked, or it is for another document (`elsewhere`).
 * Retrying cannot help with any of them, so the connection stops (TOKEN7).
 */
export type TokenRefusal = 'invalid' | 'expired' | 'revoked' | 'elsewhere';

const byReason: Partial<Record<string, TokenRefusal>> = {
  [denialReasons.invalidToken]: 'invalid',
  [denialReasons.expiredToken]: 'expired',
  [denialReasons.revokedToken]: 'revoked',
  [denialReasons.notAllowed]: 'elsewhere',
};

/** The refusal a permission-denied reason (DOC4) stands for; null for one a retry may get past. */
export function refusalOfReason(reason: string): TokenRefusal | null {
  return byReason[reason] ?? null;
}

/** The refusal a socket's close stands for (TOKEN4: 4401 with the reason); null for any other close. */
export function refusalOfClose(event: { code?: number; reason?: string }): TokenRefusal | null {
  if (event.code !== tokenEndedCloseCode) return null;
  const refusal = refusalOfReason(event.reason ?? '');
  return refusal === 'elsewhere' ? null : refusal;
}

/** What the refusal screen says: what happened, and what to do. */
export const refusalWords: Record<TokenRefusal, { heading: string; happened: string }> = {
  invalid: {
    heading: 'This link does not open the document',
    happened: 'The server did not accept this link’s sign-in — ask for a new link.',
  },
  expired: { heading: 'Your link has expired', happened: 'Your link has expired — ask for a new one.' },
  revoked: { heading: 'Your access was removed', happened: 'Your link has been revoked — ask for a new one.' },
  elsewhere: {
    heading: 'This link is for another document',
    happened: 'Your link does not open this document — ask for a new link to it.',
  },
};
