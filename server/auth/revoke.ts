import Database from 'better-sqlite3';
import { join } from 'node:path';
import { decodeClaims, isTokenId, type Claims } from '../../shared/protocol/claims.ts';
import { sqliteAuditLog } from '../store/sqlite-audit.ts';
import { sqliteRevocationList } from '../store/sqlite-revocations.ts';
import { openPostgresStore } from '../store/pg-store.ts';
import { ensurePrivateDir, ensurePrivateFile, restrictFiles } from '../private-files.ts';

/** Who revokes: the person at the command line of the server's machine. */
export const commandLineActor = { id: 'command-line', name: 'Command line', role: 'operator' };

/**
 * The token id (`jti`) that `tokenOrId` names, with the token's claims when a whole token was
 * given (read, not verified: revoking any id is harmless); null when it is neither.
 */
export function tokenIdOf(tokenOrId: string): { jti: string; claims: Claims | null } | null {
  if (!tokenOrId.includes('.')) return isTokenId(tokenOrId) ? { jti: tokenOrId, claims: null } : null;
  const claims = decodeClaims(tokenOrId);
  return claims?.jti ? { jti: claims.jti, claims } : null;
}

/**
 * Adds `jti` to the revocation list in `<dataDir>/tandem.sqlite` and writes the audit entry
 * (for the token's document, or for every document). Works while a server uses the database
 * (SQLite WAL; a busy database is waited for). False when it was revoked before.
 */
export async function revokeInDataDir(dataDir: string, jti: string, doc: string | null): Promise<boolean> {
  // The first command run on a data directory may be this one: it makes the directory and the
  // database as private as the server would.
  ensurePrivateDir(dataDir);
  const file = join(dataDir, 'tandem.sqlite');
  ensurePrivateFile(file);
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    restrictFiles([`${file}-wal`, `${file}-shm`]);
    const now = Date.now();
    const added = await sqliteRevocationList(db).revoke(jti, now);
    if (added) await sqliteAuditLog(db).record({ action: 'token.revoked', docId: doc, actor: commandLineActor, tokenId: jti, at: now });
    return added;
  } finally {
    db.close();
  }
}

/** As revokeInDataDir, in the PostgreSQL database at `databaseUrl` (`DATABASE_URL`, SCALE1), which every instance reads. */
export async function revokeInDatabase(databaseUrl: string, jti: string, doc: string | null): Promise<boolean> {
  const store = await openPostgresStore(databaseUrl);
  try {
    const now = Date.now();
    const added = await store.revocations.revoke(jti, now);
    if (added) await store.audit.record({ action: 'token.revoked', docId: doc, actor: commandLineActor, tokenId: jti, at: now });
    return added;
  } finally {
    await store.close();
  }
}
