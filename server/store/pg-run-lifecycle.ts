import type pg from 'pg';
import type { SavedRunScope } from '../../shared/applier/run-scope.ts';
import type { Author } from '../../shared/notes/annotations.ts';
import { claimedStates } from '../../shared/protocol/run-states.ts';
import { leaves, reaches, stateIn } from './sqlite-run-states.ts';
import { revertibleRuns, type RunStore } from './run-store.ts';
import { isUniqueViolation, toBuffer, transaction } from './pg-db.ts';
import { variantsColumn } from './run-rows.ts';

type Lifecycle = Pick<
  RunStore,
  'claimRun' | 'renewLease' | 'requeueRun' | 'findBatch' | 'recordBatch' | 'completeRun' | 'failRun' | 'cancelRun' | 'decideRun' | 'decideItem' | 'chooseVariant' | 'storeScope' | 'revertRun' | 'reopenRun' | 'unrevertRun' | 'loadScope' | 'openScopes'
>;

/**
 * The run store's transitions over PostgreSQL, statement for statement those of
 * sqlite-run-lifecycle.ts: each is a conditional UPDATE (`… WHERE id = $1 AND state IN (…)`)
 * whose row count says whether it won, with its bookkeeping in the same transaction. Under
 * PostgreSQL's READ COMMITTED a second UPDATE of the same row waits for the first to commit and
 * then re-checks its WHERE clause on the new row, so of concurrent callers on any number of
 * instances exactly one wins (SCALE3).
 */
export function pgRunLifecycle(pool: pg.Pool): Lifecycle {
  const dropWork = async (client: pg.PoolClient, id: string) => {
    await client.query(`UPDATE run_items SET outcome = 'pending', reason = NULL WHERE run_id = $1`, [id]);
    await client.query('DELETE FROM run_changes WHERE run_id = $1', [id]);
    await client.query('DELETE FROM run_batches WHERE run_id = $1', [id]);
    await client.query('DELETE FROM run_scopes WHERE run_id = $1', [id]);
  };
  /** Whether the run is in review, its row locked until the transaction ends (decisions take turns). */
  const lockInReview = async (client: pg.PoolClient, id: string) =>
    ((await client.query(`SELECT id FROM runs WHERE id = $1 AND ${leaves('accept')} FOR UPDATE`, [id])).rowCount ?? 0) > 0;
  const noteChanges = async (client: pg.PoolClient, id: string, notes: ReadonlyMap<number, string>) => {
    for (const [position, note] of notes) await client.query('UPDATE run_changes SET note = $3 WHERE run_id = $1 AND position = $2', [id, position, note]);
  };
  /** As settleRun of sqlite-run-lifecycle.ts (REV12). */
  const settleRun = async (client: pg.PoolClient, id: string, now: number, by: Author | null): Promise<'review' | 'accepted' | 'discarded'> => {
    const { rows } = await client.query<{ undecided: string; accepted: string }>(
      `SELECT COUNT(*) FILTER (WHERE decision IS NULL AND outcome = 'changed') AS undecided,
              COUNT(*) FILTER (WHERE decision = 'accepted') AS accepted
       FROM run_items WHERE run_id = $1`,
      [id],
    );
    if (Number(rows[0].undecided) > 0) return 'review';
    const state = Number(rows[0].accepted) > 0 ? 'accepted' : 'discarded';
    await client.query('UPDATE run_items SET decision = $2 WHERE run_id = $1 AND decision IS NULL', [id, state]);
    await client.query(
      `UPDATE runs SET state = $2, decided_by = $4, decided_by_name = $5, updated_at = $3
       WHERE id = $1 AND ${leaves(state === 'accepted' ? 'accept' : 'discard')}`,
      [id, state, now, by?.id ?? null, by?.name ?? null],
    );
    if (state === 'discarded') {
      await client.query('DELETE FROM run_scopes WHERE run_id = $1', [id]);
    } else {
      await client.query(
        `DELETE FROM run_scopes WHERE run_id IN (
           SELECT r.id FROM runs r JOIN run_scopes s ON s.run_id = r.id
           WHERE r.doc_id = (SELECT doc_id FROM runs WHERE id = $1) AND r.state = 'accepted'
           ORDER BY r.updated_at DESC, r.id COLLATE "C" DESC OFFSET $2)`,
        [id, revertibleRuns],
      );
    }
    return state;
  };
  const upsertScope = (client: pg.PoolClient, runId: string, scope: SavedRunScope) =>
    client.query(
      `INSERT INTO run_scopes (run_id, insertions, deletions, items) VALUES ($1, $2, $3, $4)
       ON CONFLICT (run_id) DO UPDATE SET insertions = excluded.insertions, deletions = excluded.deletions, items = excluded.items`,
      [runId, toBuffer(scope.insertions), toBuffer(scope.deletions), scope.items ? toBuffer(scope.items) : null],
    );

  return {
    async claimRun(id, agent, now, leaseExpiresAt) {
      const result = await pool.query(
        `UPDATE runs SET ${reaches('claim')}, claimed_by = $2, claimed_by_name = $3, lease_expires_at = $4, updated_at = $5
         WHERE id = $1 AND ${leaves('claim')}`,
        [id, agent.id, agent.name, leaseExpiresAt, now],
      );
      return result.rowCount === 1;
    },
    async renewLease(id, agentId, now, leaseExpiresAt) {
      const result = await pool.query(
        `UPDATE runs SET lease_expires_at = $4, updated_at = $3
         WHERE id = $1 AND ${stateIn(claimedStates)} AND claimed_by = $2 AND lease_expires_at > $3`,
        [id, agentId, now, leaseExpiresAt],
      );
      return result.rowCount === 1;
    },
    requeueRun: (id, now) =>
      transaction(pool, async (client) => {
        const result = await client.query(
          `UPDATE runs SET ${reaches('leaseExpired')}, claimed_by = NULL, claimed_by_name = NULL, lease_expires_at = NULL,
             summary = NULL, updated_at = $2
           WHERE id = $1 AND ${leaves('leaseExpired')} AND lease_expires_at <= $2`,
          [id, now],
        );
        if (result.rowCount === 0) return false;
        await dropWork(client, id);
        return true;
      }),
    async findBatch(runId, idempotencyKey) {
      const { rows } = await pool.query<{ response: string }>('SELECT response FROM run_batches WHERE run_id = $1 AND idempotency_key = $2', [runId, idempotencyKey]);
      return rows[0] ? (JSON.parse(rows[0].response) as unknown) : undefined;
    },
    recordBatch: (runId, agentId, now, batch) =>
      transaction(pool, async (client) => {
        // The row lock keeps the claim from changing hands until this batch commits.
        const held = await client.query(`SELECT id FROM runs WHERE id = $1 AND ${stateIn(claimedStates)} AND claimed_by = $2 FOR UPDATE`, [runId, agentId]);
        if (held.rowCount === 0) return false;
        await client.query('INSERT INTO run_batches (run_id, idempotency_key, response) VALUES ($1, $2, $3)', [runId, batch.idempotencyKey, JSON.stringify(batch.response)]);
        let position = (await client.query<{ n: number }>('SELECT COUNT(*) AS n FROM run_changes WHERE run_id = $1', [runId])).rows[0].n;
        for (const change of batch.changes) {
          await client.query(
            `INSERT INTO run_changes (run_id, position, block_id, instruction_id, op, before, after, variants) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
            [runId, position++, change.blockId, change.instructionId, change.op, change.before, change.after, variantsColumn(change)],
          );
          await client.query(`UPDATE run_items SET outcome = 'changed' WHERE run_id = $1 AND instruction_id = $2`, [runId, change.instructionId]);
        }
        await upsertScope(client, runId, batch.scope);
        await client.query('UPDATE runs SET updated_at = $2 WHERE id = $1', [runId, now]);
        return true;
      }),
    completeRun: (id, agentId, now, completion) =>
      transaction(pool, async (client) => {
        const result = await client.query(
          `UPDATE runs SET ${reaches('complete')}, lease_expires_at = NULL, summary = $4, updated_at = $3
           WHERE id = $1 AND ${leaves('complete')} AND claimed_by = $2`,
          [id, agentId, now, completion.summary],
        );
        if (result.rowCount === 0) return false;
        const items = await client.query<{ position: number; instruction_id: string; outcome: string }>(
          'SELECT position, instruction_id, outcome FROM run_items WHERE run_id = $1',
          [id],
        );
        for (const item of items.rows) {
          const reason = completion.refusals.get(item.instruction_id) ?? null;
          const outcome = item.outcome === 'changed' ? 'changed' : reason !== null ? 'refused' : 'unchanged';
          await client.query('UPDATE run_items SET outcome = $3, reason = $4 WHERE run_id = $1 AND position = $2', [id, item.position, outcome, reason]);
        }
        return true;
      }),
    failRun: (id, agentId, now, message) =>
      transaction(pool, async (client) => {
        const result = await client.query(
          `UPDATE runs SET ${reaches('fail')}, lease_expires_at = NULL, error = $4, updated_at = $3
           WHERE id = $1 AND ${leaves('fail')} AND claimed_by = $2`,
          [id, agentId, now, message],
        );
        if (result.rowCount === 0) return false;
        await dropWork(client, id);
        return true;
      }),
    cancelRun: (id, now, by) =>
      transaction(pool, async (client) => {
        const result = await client.query(
          `UPDATE runs SET ${reaches('cancel')}, lease_expires_at = NULL, decided_by = $3, decided_by_name = $4, updated_at = $2
           WHERE id = $1 AND ${leaves('cancel')}`,
          [id, now, by.id, by.name],
        );
        if (result.rowCount === 0) return false;
        await dropWork(client, id);
        return true;
      }),
    decideRun: (id, state, now, by, notes = new Map()) =>
      transaction(pool, async (client) => {
        if (!(await lockInReview(client, id))) return false;
        await client.query('UPDATE run_items SET decision = $2 WHERE run_id = $1 AND decision IS NULL', [id, state]);
        await noteChanges(client, id, notes);
        await settleRun(client, id, now, by ?? null);
        return true;
      }),
    decideItem: (id, instructionId, decision, now, by, notes = new Map()) =>
      transaction(pool, async (client) => {
        if (!(await lockInReview(client, id))) return false;
        const result = await client.query('UPDATE run_items SET decision = $3 WHERE run_id = $1 AND instruction_id = $2 AND decision IS NULL', [
          id,
          instructionId,
          decision,
        ]);
        if (result.rowCount === 0) return false;
        await noteChanges(client, id, notes);
        return settleRun(client, id, now, by);
      }),
    chooseVariant: (id, instructionId, now, choice) =>
      transaction(pool, async (client) => {
        if (!(await lockInReview(client, id))) return false;
        const undecided = await client.query('SELECT position FROM run_items WHERE run_id = $1 AND instruction_id = $2 AND decision IS NULL', [id, instructionId]);
        if (undecided.rowCount === 0) return false;
        const chosen = await client.query(
          'UPDATE run_changes SET after = $3, variants = $4 WHERE run_id = $1 AND instruction_id = $2 AND variants IS NOT NULL',
          [id, instructionId, choice.after, JSON.stringify(choice.variants)],
        );
        if (chosen.rowCount === 0) return false;
        await upsertScope(client, id, choice.scope);
        await client.query('UPDATE runs SET updated_at = $2 WHERE id = $1', [id, now]);
        return true;
      }),
    storeScope: (runId, scope) =>
      transaction(pool, async (client) => {
        const holds = await client.query(`SELECT id FROM runs WHERE id = $1 AND (state = 'review' OR (state = 'accepted' AND reverted_at IS NULL)) FOR UPDATE`, [runId]);
        if (holds.rowCount === 0) return false;
        await upsertScope(client, runId, scope);
        return true;
      }),
    revertRun: (id, now, by, notReverted) =>
      transaction(pool, async (client) => {
        const result = await client.query(
          `UPDATE runs SET reverted_at = $2, reverted_by = $3, reverted_by_name = $4, not_reverted = $5, updated_at = $2
           WHERE id = $1 AND ${leaves('revert')} AND reverted_at IS NULL AND EXISTS (SELECT 1 FROM run_scopes WHERE run_id = $1)`,
          [id, now, by.id, by.name, JSON.stringify(notReverted)],
        );
        if (result.rowCount === 0) return false;
        await client.query('DELETE FROM run_scopes WHERE run_id = $1', [id]);
        return true;
      }),
    async unrevertRun(id, now) {
      const result = await pool.query(
        `UPDATE runs SET reverted_at = NULL, reverted_by = NULL, reverted_by_name = NULL, not_reverted = NULL, updated_at = $2
         WHERE id = $1 AND ${leaves('undoRevert')} AND reverted_at IS NOT NULL`,
        [id, now],
      );
      return result.rowCount === 1;
    },
    async reopenRun(id, now) {
      try {
        return await transaction(pool, async (client) => {
          const result = await client.query(
            `UPDATE runs SET ${reaches('undoDiscard')}, decided_by = NULL, decided_by_name = NULL, updated_at = $2 WHERE id = $1 AND ${leaves('undoDiscard')}`,
            [id, now],
          );
          if (result.rowCount !== 1) return false;
          await client.query('UPDATE run_items SET decision = NULL WHERE run_id = $1', [id]);
          return true;
        });
      } catch (error) {
        if (isUniqueViolation(error, 'runs_one_outstanding')) return false;
        throw error;
      }
    },
    async loadScope(runId) {
      const { rows } = await pool.query<{ insertions: Buffer; deletions: Buffer; items: Buffer | null }>('SELECT insertions, deletions, items FROM run_scopes WHERE run_id = $1', [runId]);
      return rows[0] ? toScope(rows[0]) : null;
    },
    async openScopes(docId) {
      const { rows } = await pool.query<{ run_id: string; insertions: Buffer; deletions: Buffer; items: Buffer | null }>(
        `SELECT s.run_id, s.insertions, s.deletions, s.items FROM run_scopes s JOIN runs r ON r.id = s.run_id
         WHERE r.doc_id = $1 AND r.state IN ('claimed', 'review', 'accepted')`,
        [docId],
      );
      return rows.map((row) => ({ runId: row.run_id, scope: toScope(row) }));
    },
  };
}

function toScope(row: { insertions: Buffer; deletions: Buffer; items: Buffer | null }): SavedRunScope {
  return { insertions: new Uint8Array(row.insertions), deletions: new Uint8Array(row.deletions), items: row.items ? new Uint8Array(row.items) : null };
}
