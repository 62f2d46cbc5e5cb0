import type Database from 'better-sqlite3';

/**
 * The revoked token ids (`jti`), in the server's database so that `tandem revoke`, run as
 * another process, reaches a running server: every verification asks `isRevoked`, and the
 * server polls `revokedSince` to close the open connections of tokens revoked meanwhile.
 */
export interface RevocationList {
  /** Revokes `jti`; false when it already was. */
  revoke(jti: string, revokedAt: number): Promise<boolean>;
  isRevoked(jti: string): Promise<boolean>;
  /** The ids revoked after `cursor` (0 at first) and the cursor to pass next time. */
  revokedSince(cursor: number): Promise<{ ids: string[]; cursor: number }>;
}

const schema = `
CREATE TABLE IF NOT EXISTS revoked_tokens (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  jti TEXT NOT NULL UNIQUE,
  revoked_at INTEGER NOT NULL
);
`;

export function sqliteRevocationList(db: Database.Database): RevocationList {
  db.exec(schema);
  const insert = db.prepare('INSERT INTO revoked_tokens (jti, revoked_at) VALUES (?, ?) ON CONFLICT(jti) DO NOTHING');
  const select = db.prepare<[string], { seq: number }>('SELECT seq FROM revoked_tokens WHERE jti = ?');
  const since = db.prepare<[number], { seq: number; jti: string }>('SELECT seq, jti FROM revoked_tokens WHERE seq > ? ORDER BY seq');
  return {
    async revoke(jti, revokedAt) {
      return insert.run(jti, revokedAt).changes === 1;
    },
    async isRevoked(jti) {
      return select.get(jti) !== undefined;
    },
    async revokedSince(cursor) {
      const rows = since.all(cursor);
      return { ids: rows.map((row) => row.jti), cursor: rows.at(-1)?.seq ?? cursor };
    },
  };
}
