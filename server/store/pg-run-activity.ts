import type pg from 'pg';
import { claimedStates } from '../../shared/protocol/run-states.ts';
import { addUsage, keptActivityLines, noUsage, type TokenUsage } from '../../shared/wire/activity.ts';
import type { ActivityReport, RunActivity } from './run-store.ts';
import { stateIn } from './sqlite-run-states.ts';
import { transaction, type Queryable } from './pg-db.ts';

/** The `run_activity` table over PostgreSQL (MODEL8), as sqlite-run-activity.ts keeps it. */

interface ActivityRow {
  run_id: string;
  model: string | null;
  lines: string;
  input_tokens: string | null;
  output_tokens: string | null;
  cached_input_tokens: string | null;
}

function toActivity(row: ActivityRow): RunActivity {
  return {
    model: row.model,
    lines: JSON.parse(row.lines) as RunActivity['lines'],
    usage:
      row.input_tokens === null
        ? null
        : { inputTokens: Number(row.input_tokens), outputTokens: Number(row.output_tokens ?? 0), cachedInputTokens: Number(row.cached_input_tokens ?? 0) },
  };
}

/** The activity of each of `runIds` that has any. */
export async function pgActivityOf(db: Queryable, runIds: string[]): Promise<Map<string, RunActivity>> {
  const { rows } = await db.query<ActivityRow>('SELECT * FROM run_activity WHERE run_id = ANY($1)', [runIds]);
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
      const current = (await pgActivityOf(client, [runId])).get(runId) ?? { model: null, lines: [], usage: null };
      const lines = report.line === undefined ? current.lines : [...current.lines, { at: now, text: report.line }].slice(-keptActivityLines);
      const usage: TokenUsage | null = report.usage ? addUsage(current.usage ?? noUsage, report.usage) : current.usage;
      await client.query(
        `INSERT INTO run_activity (run_id, model, lines, input_tokens, output_tokens, cached_input_tokens)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (run_id) DO UPDATE SET model = excluded.model, lines = excluded.lines, input_tokens = excluded.input_tokens,
           output_tokens = excluded.output_tokens, cached_input_tokens = excluded.cached_input_tokens`,
        [runId, report.model ?? current.model, JSON.stringify(lines), usage?.inputTokens ?? null, usage?.outputTokens ?? null, usage?.cachedInputTokens ?? null],
      );
      await client.query('UPDATE runs SET updated_at = $1 WHERE id = $2', [now, runId]);
      return true;
    });
}
