import type pg from 'pg';
import { claimedStates } from '../../shared/protocol/run-states.ts';
import type { ActivityReport, RunActivity } from './run-store.ts';
import { toActivity, withReport, type ActivityRow } from './run-activity-rows.ts';
import { stateIn } from './sqlite-run-states.ts';
import { transaction, type Queryable } from './pg-db.ts';

/** The activity of each of `runIds` that has any, from the `run_activity` table (MODEL8). */
export async function pgActivityOf(db: Queryable, runIds: string[]): Promise<Map<string, RunActivity>> {
  const { rows } = await db.query<ActivityRow & { run_id: string }>('SELECT * FROM run_activity WHERE run_id = ANY($1)', [runIds]);
  return new Map(rows.map((row) => [row.run_id, toActivity(row)]));
}

/** Adds a report of the agent holding the run's claim at `now`; false (nothing written) otherwise. */
export function pgRecordActivity(pool: pg.Pool) {
  return (runId: string, agentId: string, now: number, report: ActivityReport): Promise<boolean> =>
    transaction(pool, async (client) => {
      const held = await client.query(
        `SELECT id FROM runs WHERE id = $1 AND ${stateIn(claimedStates)} AND claimed_by = $2 AND lease_expires_at > $3 FOR UPDATE`,
        [runId, agentId, now],
      );
      if (held.rowCount === 0) return false;
      const next = withReport((await pgActivityOf(client, [runId])).get(runId) ?? null, now, report);
      await client.query(
        `INSERT INTO run_activity (run_id, model, lines, input_tokens, output_tokens, cached_input_tokens)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (run_id) DO UPDATE SET model = excluded.model, lines = excluded.lines, input_tokens = excluded.input_tokens,
           output_tokens = excluded.output_tokens, cached_input_tokens = excluded.cached_input_tokens`,
        [runId, next.model, next.lines, next.inputTokens, next.outputTokens, next.cachedInputTokens],
      );
      await client.query('UPDATE runs SET updated_at = $1 WHERE id = $2', [now, runId]);
      return true;
    });
}
