import type pg from 'pg';
import type { AsideRecord } from '../../shared/wire/asides.ts';
import type { AddOutcome, AsideBoard, BoardAside } from './aside-board.ts';
import { transaction, type Queryable } from './pg-db.ts';
import type { PgChannel } from './pg-channel.ts';

interface AsideRow {
  seq: number;
  doc_id: string;
  record: string;
  mirrored: boolean;
}

/** The first key of the advisory locks that order the asides added to one run. */
const addLockClass = 74_063;

/**
 * The asides of claimed runs in PostgreSQL (the `asides` table), so that every instance on the
 * database sees the same ones (SCALE5): a person's question taken by one instance is handed to
 * the agent polling another, and the answer that instance takes reaches the person's request
 * on the first. Each change is told to the other instances on `channel` as "<runId> <asideId>".
 * Adding to one run is serialised by an advisory lock, so its per-person limits hold across instances;
 * handing out and changing an aside lock its row.
 */
export function pgAsideBoard(pool: pg.Pool, channel: PgChannel): AsideBoard {
  const listeners = new Set<(runId: string, asideId: string) => void>();
  const changed = async (runId: string, asideId: string) => {
    for (const listener of listeners) listener(runId, asideId);
    // The change is committed; a notice that cannot be sent is made up for by the other
    // instances' own looks at the table (SCALE5), so it fails nothing.
    await channel.notify(`${runId} ${asideId}`).catch(() => {});
  };
  channel.onRemote((message) => {
    const [runId, asideId] = message.split(' ');
    if (!runId || !asideId) return;
    for (const listener of listeners) listener(runId, asideId);
  });

  return {
    shared: true,
    async add(aside, limits) {
      const { runId, asideId, kind, askedBy } = aside.record;
      const outcome = await transaction(pool, async (client): Promise<AddOutcome> => {
        await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [addLockClass, runId]);
        const { rows } = await client.query<{ total: number; open: number }>(
          "SELECT count(*)::int AS total, count(*) FILTER (WHERE open_question)::int AS open FROM asides WHERE run_id = $1 AND record::jsonb -> 'askedBy' ->> 'id' = $2",
          [runId, askedBy.id],
        );
        if (rows[0].total >= limits.total) return 'too-many';
        if (kind === 'question' && rows[0].open >= limits.openQuestions) return 'too-many-open';
        await insert(client, aside);
        return 'added';
      });
      if (outcome === 'added') await changed(runId, asideId);
      return outcome;
    },
    async takeUndelivered(runId) {
      const { rows } = await pool.query<AsideRow>(
        'UPDATE asides SET delivered = TRUE WHERE run_id = $1 AND NOT delivered RETURNING seq, doc_id, record, mirrored',
        [runId],
      );
      return rows.sort((a, b) => a.seq - b.seq).map(toAside);
    },
    async get(asideId) {
      const { rows } = await pool.query<AsideRow>('SELECT seq, doc_id, record, mirrored FROM asides WHERE aside_id = $1', [asideId]);
      return rows[0] ? toAside(rows[0]) : null;
    },
    async openQuestions(runId) {
      const { rows } = await pool.query<AsideRow>('SELECT seq, doc_id, record, mirrored FROM asides WHERE run_id = $1 AND open_question ORDER BY seq', [runId]);
      return rows.map(toAside);
    },
    async update(asideId, change, follow) {
      let followed: BoardAside | undefined;
      const result = await transaction(pool, async (client) => {
        const { rows } = await client.query<AsideRow>('SELECT seq, doc_id, record, mirrored FROM asides WHERE aside_id = $1 FOR UPDATE', [asideId]);
        if (!rows[0]) return null;
        const aside = toAside(rows[0]);
        const next = change(aside.record);
        if (next === null) return { aside, changed: false };
        await client.query('UPDATE asides SET record = $2, open_question = $3 WHERE aside_id = $1', [asideId, JSON.stringify(next), isOpen(next)]);
        followed = follow?.(next);
        if (followed) await insert(client, followed);
        return { aside: { ...aside, record: next }, changed: true };
      });
      if (result?.changed) {
        await changed(result.aside.record.runId, asideId);
        if (followed) await changed(followed.record.runId, followed.record.asideId);
      }
      return result;
    },
    async dropRun(runId) {
      await pool.query('DELETE FROM asides WHERE run_id = $1', [runId]);
    },
    onChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * Forgets the asides of runs that are no longer claimed: their instances may have stopped
 * before they could (ASIDE8). Called when a store opens; several instances may call it at once.
 */
export async function forgetEndedRunsAsides(pool: pg.Pool): Promise<void> {
  await pool.query("DELETE FROM asides WHERE run_id NOT IN (SELECT id FROM runs WHERE state = 'claimed')");
}

function insert(client: Queryable, aside: BoardAside): Promise<unknown> {
  return client.query('INSERT INTO asides (aside_id, run_id, doc_id, record, mirrored, open_question) VALUES ($1, $2, $3, $4, $5, $6)', [
    aside.record.asideId,
    aside.record.runId,
    aside.docId,
    JSON.stringify(aside.record),
    aside.mirrored,
    isOpen(aside.record),
  ]);
}

function isOpen(record: AsideRecord): boolean {
  return record.kind === 'question' && !record.done;
}

function toAside(row: AsideRow): BoardAside {
  return { docId: row.doc_id, mirrored: row.mirrored, record: JSON.parse(row.record) as AsideRecord };
}
