import type Database from 'better-sqlite3';
import { claimedStates } from '../../shared/protocol/run-states.ts';
import type { ActivityReport, RunActivity } from './run-store.ts';
import { toActivity, withReport, type ActivityRow } from './run-activity-rows.ts';
import { stateIn } from './sqlite-run-states.ts';

/**
 * MODEL8: what the agent holding a run told of its work, one row per run: its model, its last
 * `keptActivityLines` lines (JSON, oldest first) and the tokens it used, summed (NULL until it
 * reported any).
 */
export const runActivitySchema = `
CREATE TABLE run_activity (
  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  model TEXT,
  lines TEXT NOT NULL DEFAULT '[]',
  input_tokens INTEGER,
  output_tokens INTEGER,
  cached_input_tokens INTEGER
);
`;

export function sqliteRunActivity(db: Database.Database) {
  const select = db.prepare<[string], ActivityRow>('SELECT * FROM run_activity WHERE run_id = ?');
  const holdsClaim = db.prepare<{ id: string; agentId: string; now: number }, { id: string }>(
    `SELECT id FROM runs WHERE id = @id AND ${stateIn(claimedStates)} AND claimed_by = @agentId AND lease_expires_at > @now`,
  );
  const upsert = db.prepare(
    `INSERT INTO run_activity (run_id, model, lines, input_tokens, output_tokens, cached_input_tokens)
     VALUES (@runId, @model, @lines, @inputTokens, @outputTokens, @cachedInputTokens)
     ON CONFLICT(run_id) DO UPDATE SET model = excluded.model, lines = excluded.lines, input_tokens = excluded.input_tokens,
       output_tokens = excluded.output_tokens, cached_input_tokens = excluded.cached_input_tokens`,
  );
  const touch = db.prepare('UPDATE runs SET updated_at = @now WHERE id = @id');

  const activityOf = (runId: string): RunActivity | null => {
    const row = select.get(runId);
    return row ? toActivity(row) : null;
  };

  /** Adds a report of the agent holding the run's claim at `now`; false (nothing written) otherwise. */
  const recordActivity = db.transaction((runId: string, agentId: string, now: number, report: ActivityReport): boolean => {
    if (!holdsClaim.get({ id: runId, agentId, now })) return false;
    upsert.run({ runId, ...withReport(activityOf(runId), now, report) });
    touch.run({ id: runId, now });
    return true;
  });

  return { activityOf, recordActivity };
}
