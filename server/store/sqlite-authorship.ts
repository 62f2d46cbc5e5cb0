import type Database from 'better-sqlite3';
import { agentSubject, type AuthorshipBook, type ClientAuthor } from './authorship-book.ts';

/** Migration 6's table: the owner of each Yjs client id of a text document (WHO1, WHO2). */
export const authorshipSchema = `
CREATE TABLE text_authors (
  doc_id TEXT NOT NULL,
  client INTEGER NOT NULL,
  subject TEXT NOT NULL,
  author TEXT NOT NULL,
  PRIMARY KEY (doc_id, client)
);
`;

export function sqliteAuthorshipBook(db: Database.Database): AuthorshipBook {
  const insert = db.prepare('INSERT INTO text_authors (doc_id, client, subject, author) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
  const owner = db.prepare<[string, number], { subject: string }>('SELECT subject FROM text_authors WHERE doc_id = ? AND client = ?');
  const all = db.prepare<[string], { client: number; subject: string; author: string }>('SELECT client, subject, author FROM text_authors WHERE doc_id = ?');
  const claimAll = db.transaction((docId: string, claims: Parameters<AuthorshipBook['claim']>[1]) => {
    const owners = new Map<number, string>();
    for (const { client, subject, author } of claims) {
      insert.run(docId, client, subject, JSON.stringify(author));
      // In the same transaction as the insert: the row is there, the claimant's or an earlier one.
      owners.set(client, owner.get(docId, client)?.subject ?? subject);
    }
    return owners;
  });
  const accept = db.prepare(
    `UPDATE text_authors SET author = json_set(author, '$.acceptedBy', @name)
     WHERE doc_id = @docId AND subject = @subject AND json_extract(author, '$.instructionId') IN (SELECT value FROM json_each(@ids))`,
  );
  return {
    async accepted(docId, runId, instructionIds, name) {
      accept.run({ docId, subject: agentSubject(runId), ids: JSON.stringify(instructionIds), name });
    },
    async claim(docId, claims) {
      return claimAll(docId, claims);
    },
    async authors(docId) {
      return new Map(all.all(docId).map((row) => [row.client, { subject: row.subject, author: JSON.parse(row.author) as ClientAuthor }]));
    },
  };
}
