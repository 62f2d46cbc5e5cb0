import type Database from 'better-sqlite3';
import type { InviteBook, InviteRecord, PersonRecord } from './invite-book.ts';

/** The tables of invites and of the people who joined by them (SQLite migration 4, PostgreSQL step 9). */
export const invitesSchema = `
CREATE TABLE invites (
  id TEXT PRIMARY KEY,
  code_hash TEXT NOT NULL UNIQUE,
  doc_id TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('editor', 'commenter', 'viewer')),
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  max_uses INTEGER,
  uses INTEGER NOT NULL DEFAULT 0,
  grant_until INTEGER,
  revoked_at INTEGER
);
CREATE INDEX invites_by_doc ON invites (doc_id, created_at);
CREATE TABLE doc_people (
  doc_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  name TEXT NOT NULL,
  role TEXT NOT NULL,
  token_id TEXT NOT NULL,
  invite_id TEXT NOT NULL,
  joined_at INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  PRIMARY KEY (doc_id, subject)
);
`;

export interface InviteRow {
  id: string;
  code_hash: string;
  doc_id: string;
  role: InviteRecord['role'];
  created_by: string;
  created_at: number | string;
  expires_at: number | string | null;
  max_uses: number | null;
  uses: number;
  grant_until: number | string | null;
  revoked_at: number | string | null;
}

export interface PersonRow {
  doc_id: string;
  subject: string;
  name: string;
  role: PersonRecord['role'];
  token_id: string;
  invite_id: string;
  joined_at: number | string;
  last_seen: number | string;
}

const orNull = (value: number | string | null) => (value === null ? null : Number(value));

/** A row of either backend as a record (PostgreSQL answers BIGINT as text). */
export function inviteOfRow(row: InviteRow): InviteRecord {
  return {
    id: row.id,
    codeHash: row.code_hash,
    docId: row.doc_id,
    role: row.role,
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    expiresAt: orNull(row.expires_at),
    maxUses: row.max_uses,
    uses: Number(row.uses),
    grantUntil: orNull(row.grant_until),
    revokedAt: orNull(row.revoked_at),
  };
}

export function personOfRow(row: PersonRow): PersonRecord {
  return {
    docId: row.doc_id,
    subject: row.subject,
    name: row.name,
    role: row.role,
    tokenId: row.token_id,
    inviteId: row.invite_id,
    joinedAt: Number(row.joined_at),
    lastSeen: Number(row.last_seen),
  };
}

/** The condition under which an invite still admits someone at `at` (the same on both backends). */
export const admitsClause = 'revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $at) AND (max_uses IS NULL OR uses < max_uses)';

export function sqliteInviteBook(db: Database.Database): InviteBook {
  const insert = db.prepare(
    `INSERT INTO invites (id, code_hash, doc_id, role, created_by, created_at, expires_at, max_uses, grant_until)
     VALUES (@id, @codeHash, @docId, @role, @createdBy, @createdAt, @expiresAt, @maxUses, @grantUntil)`,
  );
  const byId = db.prepare<[string], InviteRow>('SELECT * FROM invites WHERE id = ?');
  const byDoc = db.prepare<[string], InviteRow>('SELECT * FROM invites WHERE doc_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id');
  const revoke = db.prepare('UPDATE invites SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const byCode = db.prepare<[string], InviteRow>('SELECT * FROM invites WHERE code_hash = ?');
  const use = db.prepare<{ id: string; at: number }>(`UPDATE invites SET uses = uses + 1 WHERE id = @id AND ${admitsClause.replaceAll('$at', '@at')}`);
  const addPerson = db.prepare(
    `INSERT INTO doc_people (doc_id, subject, name, role, token_id, invite_id, joined_at, last_seen)
     VALUES (@docId, @subject, @name, @role, @tokenId, @inviteId, @joinedAt, @lastSeen)`,
  );
  const peopleOf = db.prepare<[string], PersonRow>('SELECT * FROM doc_people WHERE doc_id = ? ORDER BY joined_at, subject');
  const personOf = db.prepare<[string, string], PersonRow>('SELECT * FROM doc_people WHERE doc_id = ? AND subject = ?');
  const removePerson = db.prepare('DELETE FROM doc_people WHERE doc_id = ? AND subject = ?');
  const seen = db.prepare('UPDATE doc_people SET last_seen = ? WHERE doc_id = ? AND subject = ? AND last_seen < ?');

  const join = db.transaction((codeHash: string, at: number, person: Parameters<InviteBook['join']>[2]) => {
    const row = byCode.get(codeHash);
    if (!row) return { ok: false as const, reason: 'unknown' as const };
    if (use.run({ id: row.id, at }).changes !== 1) return { ok: false as const, reason: 'ended' as const };
    const invite = inviteOfRow({ ...row, uses: row.uses + 1 });
    addPerson.run({ ...person(invite), inviteId: invite.id, joinedAt: at, lastSeen: at });
    return { ok: true as const, invite };
  });
  const remove = db.transaction((docId: string, subject: string) => {
    const row = personOf.get(docId, subject);
    if (!row) return null;
    removePerson.run(docId, subject);
    return personOfRow(row);
  });

  return {
    async create(invite) {
      insert.run(invite);
    },
    async get(id) {
      const row = byId.get(id);
      return row ? inviteOfRow(row) : null;
    },
    async list(docId) {
      return byDoc.all(docId).map(inviteOfRow);
    },
    async revoke(id, at) {
      return revoke.run(at, id).changes === 1;
    },
    async join(codeHash, at, person) {
      return join(codeHash, at, person);
    },
    async people(docId) {
      return peopleOf.all(docId).map(personOfRow);
    },
    async removePerson(docId, subject) {
      return remove(docId, subject);
    },
    async seen(docId, subject, at) {
      seen.run(at, docId, subject, at);
    },
  };
}
