import type pg from 'pg';
import { agentSubject, type AuthorshipBook, type ClientAuthor } from './authorship-book.ts';

/** The owners of client ids over PostgreSQL (migration step 10), as sqlite-authorship.ts describes them. */
export const pgAuthorshipSchema = `
CREATE TABLE text_authors (
  doc_id TEXT NOT NULL,
  client BIGINT NOT NULL,
  subject TEXT NOT NULL,
  author JSONB NOT NULL,
  PRIMARY KEY (doc_id, client)
);
`;

export function pgAuthorshipBook(pool: pg.Pool): AuthorshipBook {
  return {
    async accepted(docId, runId, instructionIds, name) {
      await pool.query(
        `UPDATE text_authors SET author = author || jsonb_build_object('acceptedBy', $4::text)
         WHERE doc_id = $1 AND subject = $2 AND author->>'instructionId' = ANY($3::text[])`,
        [docId, agentSubject(runId), instructionIds, name],
      );
    },
    async claim(docId, claims) {
      if (claims.length === 0) return new Map();
      const clients = claims.map((claim) => claim.client);
      await pool.query(
        `INSERT INTO text_authors (doc_id, client, subject, author)
         SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::jsonb[]) ON CONFLICT DO NOTHING`,
        [docId, clients, claims.map((claim) => claim.subject), claims.map((claim) => JSON.stringify(claim.author))],
      );
      // A statement of its own: it sees a concurrent claim committed while the insert waited on it.
      const { rows } = await pool.query<{ client: string; subject: string }>(
        'SELECT client, subject FROM text_authors WHERE doc_id = $1 AND client = ANY($2::bigint[])',
        [docId, clients],
      );
      return new Map(rows.map((row) => [Number(row.client), row.subject]));
    },
    async authors(docId) {
      const { rows } = await pool.query<{ client: string; subject: string; author: ClientAuthor }>(
        'SELECT client, subject, author FROM text_authors WHERE doc_id = $1',
        [docId],
      );
      return new Map(rows.map((row) => [Number(row.client), { subject: row.subject, author: row.author }]));
    },
  };
}
