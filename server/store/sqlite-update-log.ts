import type Database from 'better-sqlite3';
import type { InlineUpdateLog } from './update-log.ts';
import { writtenRow } from './written-row.ts';

/**
 * The log of Yjs updates of every Hocuspocus document, in the same database as the compacted
 * states (`documents`), so that a compaction writes the state and deletes what it covers in one
 * transaction. One B-tree keyed by (document, sequence number), so an append writes one page
 * (a rowid table with an index on the name and AUTOINCREMENT wrote three, at twice the cost).
 * Sequence numbers count per document and only grow: `documents.log_seq` keeps the last one a
 * compaction covered, for when it emptied the document's log.
 */
export const updateLogSchema = `
CREATE TABLE update_log (
  name TEXT NOT NULL,
  seq INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (name, seq)
) WITHOUT ROWID;
ALTER TABLE documents ADD COLUMN log_seq INTEGER NOT NULL DEFAULT 0;
`;

/**
 * The update log over an open better-sqlite3 handle whose schema is migrated, with inline
 * appends (better-sqlite3 writes synchronously): the asynchronous `append` is the inline one,
 * settled. `compact` writes the given state as it is: one process owns the file. Durability of
 * an append is that of the handle's settings: in WAL mode with `synchronous = NORMAL` (see
 * sqlite-store.ts) a committed append is in the operating system's hands when it returns, which
 * survives the death of the process, not the loss of power.
 */
export function sqliteUpdateLog(db: Database.Database): InlineUpdateLog {
  const insert = db.prepare<{ name: string; data: Buffer }, { seq: number }>(
    `INSERT INTO update_log (name, seq, data)
     VALUES (
       @name,
       max(coalesce((SELECT max(seq) FROM update_log WHERE name = @name), 0),
           coalesce((SELECT log_seq FROM documents WHERE name = @name), 0)) + 1,
       @data)
     RETURNING seq`,
  );
  const selectState = db.prepare<[string], { data: Buffer }>('SELECT data FROM documents WHERE name = ?');
  const selectUpdates = db.prepare<[string], { seq: number; data: Buffer }>('SELECT seq, data FROM update_log WHERE name = ? ORDER BY seq');
  const upsertState = db.prepare<{ name: string; data: Buffer; now: number; seq: number }>(
    `INSERT INTO documents (name, data, updated_at, log_seq) VALUES (@name, @data, @now, @seq)
     ON CONFLICT(name) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at,
       log_seq = max(log_seq, excluded.log_seq)`,
  );
  const deleteThrough = db.prepare<[string, number]>('DELETE FROM update_log WHERE name = ? AND seq <= ?');

  const read = db.transaction((name: string) => {
    const state = selectState.get(name);
    const rows = selectUpdates.all(name);
    return {
      state: state ? new Uint8Array(state.data) : null,
      updates: rows.map((row) => new Uint8Array(row.data)),
      lastSeq: rows.length > 0 ? rows[rows.length - 1].seq : 0,
    };
  });
  // DUR3: the state and the deletion of the entries it covers, in one transaction.
  const compact = db.transaction((name: string, state: Uint8Array, throughSeq: number) => {
    upsertState.run({ name, data: toBuffer(state), now: Date.now(), seq: throughSeq });
    deleteThrough.run(name, throughSeq);
  });

  const append = (name: string, update: Uint8Array) => writtenRow(insert.get({ name, data: toBuffer(update) }), `an update of ${name}`).seq;
  const appendAll = db.transaction((entries: readonly { name: string; update: Uint8Array }[]) =>
    entries.map(({ name, update }) => append(name, update)),
  );

  return {
    async append(name, update) {
      return append(name, update);
    },
    inline: {
      append,
      appendAll(entries) {
        return appendAll(entries);
      },
    },
    async read(name) {
      return read(name);
    },
    async compact(name, state, throughSeq) {
      compact(name, state, throughSeq);
    },
  };
}

/** better-sqlite3 binds Buffers, not other Uint8Arrays. */
function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
