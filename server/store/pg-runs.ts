import type pg from 'pg';
import { decidedRunStates, outstandingRunStates } from '../../shared/protocol/run-record.ts';
import { runTransitions } from '../../shared/protocol/run-states.ts';
import type { RunStore, StoredRun } from './run-store.ts';
import { toStoredRun, type ChangeRow, type ItemRow, type RunRow } from './run-rows.ts';
import { pgRunLifecycle } from './pg-run-lifecycle.ts';
import { withRunChanges } from './run-changes.ts';
import { leaves, stateIn } from './sqlite-run-states.ts';
import { pgActivityOf, pgRecordActivity } from './pg-run-activity.ts';
import { isUniqueViolation, transaction, type Queryable } from './pg-db.ts';
import { writtenRow } from './written-row.ts';

/**
 * The run store over PostgreSQL: the tables of sqlite-runs-schema.ts (created by
 * pg-migrations.ts), the same conditional transitions (pg-run-lifecycle.ts). The one-outstanding-
 * run rule is the partial unique index `runs_one_outstanding`, so it holds across every
 * instance that shares the database (SCALE3).
 */
export function pgRunStore(pool: pg.Pool): RunStore {
  async function load(db: Queryable, rows: RunRow[]): Promise<StoredRun[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    const items = await db.query<ItemRow & { run_id: string }>('SELECT * FROM run_items WHERE run_id = ANY($1) ORDER BY run_id, position', [ids]);
    const changes = await db.query<ChangeRow & { run_id: string }>('SELECT * FROM run_changes WHERE run_id = ANY($1) ORDER BY run_id, position', [ids]);
    const activity = await pgActivityOf(db, ids);
    return rows.map((row) => ({
      ...toStoredRun(
        row,
        items.rows.filter((item) => item.run_id === row.id),
        changes.rows.filter((change) => change.run_id === row.id),
      ),
      activity: activity.get(row.id) ?? null,
    }));
  }
  const select = async (sql: string, params: unknown[]) => load(pool, (await pool.query<RunRow>(sql, params)).rows);

  const inner: Omit<RunStore, 'onRunChanged'> = {
    async createRun(run) {
      try {
        await transaction(pool, async (client) => {
          await client.query(
            `INSERT INTO runs (id, doc_id, state, created_by, created_by_name, created_at, updated_at, context_markdown)
             VALUES ($1, $2, '${runTransitions.send.to}', $3, $4, $5, $5, $6)`,
            [run.id, run.docId, run.createdBy.id, run.createdBy.name, run.createdAt, run.contextMarkdown],
          );
          for (const [position, item] of run.items.entries()) {
            await client.query(
              `INSERT INTO run_items (run_id, position, instruction_id, block_id, instruction_text, quote, current_text, drifted, variants_wanted)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
              [run.id, position, item.instructionId, item.blockId, item.instruction, item.quote, item.currentText ?? null, item.drifted ?? false, item.variantsWanted ?? 1],
            );
          }
        });
      } catch (error) {
        if (isUniqueViolation(error, 'runs_one_outstanding')) return { ok: false, reason: 'outstanding' };
        throw error;
      }
      return { ok: true, run: writtenRow(await inner.getRun(run.id), `run ${run.id}`) };
    },
    async getRun(id) {
      return (await select('SELECT * FROM runs WHERE id = $1', [id]))[0] ?? null;
    },
    async listRuns(docId) {
      return select('SELECT * FROM runs WHERE doc_id = $1 ORDER BY created_at DESC, id COLLATE "C" DESC', [docId]);
    },
    async mirroredRuns(docId, window) {
      return select(
        `SELECT * FROM runs WHERE id IN (
           (SELECT id FROM runs WHERE doc_id = $1 AND ${stateIn(outstandingRunStates)})
           UNION ALL
           (SELECT id FROM runs WHERE doc_id = $1 AND NOT ${stateIn(outstandingRunStates)} ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $2)
           UNION ALL
           (SELECT id FROM runs WHERE doc_id = $1 AND ${stateIn(decidedRunStates)} ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $3)
         ) ORDER BY created_at DESC, id COLLATE "C" DESC`,
        [docId, window.finished, window.decided],
      );
    },
    async outstandingRun(docId) {
      return (await select(`SELECT * FROM runs WHERE doc_id = $1 AND ${stateIn(outstandingRunStates)}`, [docId]))[0] ?? null;
    },
    async listQueued() {
      return select(`SELECT * FROM runs WHERE ${leaves('claim')} ORDER BY created_at, id COLLATE "C"`, []);
    },
    async expiredClaims(now) {
      return select(`SELECT * FROM runs WHERE ${leaves('leaseExpired')} AND lease_expires_at <= $1 ORDER BY lease_expires_at, id COLLATE "C"`, [now]);
    },
    recordActivity: pgRecordActivity(pool),
    ...pgRunLifecycle(pool),
  };
  return withRunChanges(inner, async (runId) => (await pool.query<{ doc_id: string }>('SELECT doc_id FROM runs WHERE id = $1', [runId])).rows[0]?.doc_id ?? null);
}
