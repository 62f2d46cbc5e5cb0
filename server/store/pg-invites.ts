import type pg from 'pg';
import { transaction } from './pg-db.ts';
import type { InviteBook } from './invite-book.ts';
import { admitsClause, inviteOfRow, personOfRow, type InviteRow, type PersonRow } from './sqlite-invites.ts';

/** Invites and people over PostgreSQL (step 9 of pg-migrations.ts), as invite-book.ts describes them. */
export function pgInviteBook(pool: pg.Pool): InviteBook {
  return {
    async create(invite) {
      await pool.query(
        `INSERT INTO invites (id, code_hash, doc_id, role, created_by, created_at, expires_at, max_uses, grant_until)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [invite.id, invite.codeHash, invite.docId, invite.role, invite.createdBy, invite.createdAt, invite.expiresAt, invite.maxUses, invite.grantUntil],
      );
    },
    async get(id) {
      const { rows } = await pool.query<InviteRow>('SELECT * FROM invites WHERE id = $1', [id]);
      return rows[0] ? inviteOfRow(rows[0]) : null;
    },
    async list(docId) {
      const { rows } = await pool.query<InviteRow>('SELECT * FROM invites WHERE doc_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id', [docId]);
      return rows.map(inviteOfRow);
    },
    async revoke(id, at) {
      const result = await pool.query('UPDATE invites SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id]);
      return result.rowCount === 1;
    },
    async join(codeHash, at, person) {
      return transaction(pool, async (client) => {
        // The UPDATE takes the row's lock: a racing join waits, then sees the new count.
        const { rows } = await client.query<InviteRow>(
          `UPDATE invites SET uses = uses + 1 WHERE code_hash = $1 AND ${admitsClause.replaceAll('$at', '$2')} RETURNING *`,
          [codeHash, at],
        );
        if (rows.length === 0) {
          const known = await client.query('SELECT 1 FROM invites WHERE code_hash = $1', [codeHash]);
          return { ok: false as const, reason: (known.rowCount ?? 0) > 0 ? ('ended' as const) : ('unknown' as const) };
        }
        const invite = inviteOfRow(rows[0]);
        const joined = person(invite);
        await client.query(
          `INSERT INTO doc_people (doc_id, subject, name, role, token_id, invite_id, joined_at, last_seen) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
          [joined.docId, joined.subject, joined.name, joined.role, joined.tokenId, invite.id, at],
        );
        return { ok: true as const, invite };
      });
    },
    async people(docId) {
      const { rows } = await pool.query<PersonRow>('SELECT * FROM doc_people WHERE doc_id = $1 ORDER BY joined_at, subject', [docId]);
      return rows.map(personOfRow);
    },
    async removePerson(docId, subject) {
      const { rows } = await pool.query<PersonRow>('DELETE FROM doc_people WHERE doc_id = $1 AND subject = $2 RETURNING *', [docId, subject]);
      return rows[0] ? personOfRow(rows[0]) : null;
    },
    async seen(docId, subject, at) {
      await pool.query('UPDATE doc_people SET last_seen = $1 WHERE doc_id = $2 AND subject = $3 AND last_seen < $1', [at, docId, subject]);
    },
  };
}
