import { createHash, randomBytes } from 'node:crypto';

/**
 * INV2: an invite's code is 18 random bytes (144 bits) in base64url, shown once in its link;
 * the server keeps only its SHA-256, so the database alone admits nobody.
 */
export function newInviteCode(): string {
  return randomBytes(18).toString('base64url');
}

export function hashInviteCode(code: string): string {
  return createHash('sha256').update(code).digest('base64url');
}

/** Whether `text` has the form of a code (24 base64url characters): anything else is not looked up. */
export function isInviteCode(text: string): boolean {
  return /^[\w-]{24}$/.test(text);
}
