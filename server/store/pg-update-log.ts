import type pg from 'pg';
import { transaction, toBuffer } from './pg-db.ts';
import { mergeStored, type UpdateLog } from './update-log.ts';

/**
 * The update log in PostgreSQL (SCALE2), shared by every instance of a cluster, without inline
 * appends (node-postgres writes asynchronously only). An append is one INSERT, committed (and so on disk,
 * with PostgreSQL's default `synchronous_commit = on`) when its promise resolves. Sequence
 * numbers come from one identity column shared by every document and instance, so concurrent
 * appends never collide; they only grow. A compaction locks the document's stored state row,
 * merges it with the given state and the entries it deletes, and deletes exactly the entries it
 * merged: an entry another instance commits meanwhile stays for the next compaction. The given
 * state is merged first, so that its copy of an item wins over the stored one: content the live
 * document collected after a deletion stays collected (else the merge, which collects nothing,
 * would keep every deleted text the stored state once held), and content it keeps (a deletion an
 * open run may bring back) stays kept.
 */
export function pgUpdateLog(pool: pg.Pool): UpdateLog {
  const read = async (client: pg.Pool | pg.PoolClient, name: string, throughSeq = Number.MAX_SAFE_INTEGER, lock = false) => {
    const state = await client.query<{ data: Buffer }>(`SELECT data FROM documents WHERE name = $1${lock ? ' FOR UPDATE' : ''}`, [name]);
    const rows = await client.query<{ seq: number; data: Buffer }>('SELECT seq, data FROM update_log WHERE name = $1 AND seq <= $2 ORDER BY seq', [name, throughSeq]);
    return {
      state: state.rows[0] ? new Uint8Array(state.rows[0].data) : null,
      updates: rows.rows.map((row) => new Uint8Array(row.data)),
      seqs: rows.rows.map((row) => row.seq),
      lastSeq: rows.rows.at(-1)?.seq ?? 0,
    };
  };

  return {
    async append(name, update) {
      const { rows } = await pool.query<{ seq: number }>('INSERT INTO update_log (name, data) VALUES ($1, $2) RETURNING seq', [name, toBuffer(update)]);
      return rows[0].seq;
    },
    async read(name) {
      // One snapshot, so that the state and the log agree even while another instance compacts.
      const { state, updates, lastSeq } = await transaction(pool, async (client) => {
        await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
        return read(client, name);
      });
      return { state, updates, lastSeq };
    },
    async compact(name, state, throughSeq) {
      await transaction(pool, async (client) => {
        // Creates the row to lock when the document has no stored state yet.
        await client.query(
          'INSERT INTO documents (name, data, updated_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
          [name, toBuffer(state), Date.now()],
        );
        const stored = await read(client, name, throughSeq, true);
        const merged = mergeStored({ state, updates: [...(stored.state ? [stored.state] : []), ...stored.updates], lastSeq: stored.lastSeq }, { name });
        if (merged === null) throw new Error('A merge of at least one update is never empty.');
        await client.query('UPDATE documents SET data = $2, updated_at = $3 WHERE name = $1', [name, toBuffer(merged), Date.now()]);
        if (stored.seqs.length > 0) await client.query('DELETE FROM update_log WHERE name = $1 AND seq = ANY($2::bigint[])', [name, stored.seqs]);
      });
    },
  };
}
