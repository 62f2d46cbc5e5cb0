import type Database from 'better-sqlite3';
import { claimedStates } from '../../shared/protocol/run-states.ts';
import { addUsage, keptActivityLines, noUsage, type TokenUsage } from '../../shared/wire/activity.ts';
import type { ActivityReport, RunActivity } from './run-store.ts';
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

interface ActivityRow {
  model: string | null;
  lines: string;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_input_tokens: number | null;
}

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
    if (!row) return null;
    return {
      model: row.model,
      lines: JSON.parse(row.lines) as RunActivity['lines'],
      usage:
        row.input_tokens === null
          ? null
          : { inputTokens: row.input_tokens, outputTokens: row.output_tokens ?? 0, cachedInputTokens: row.cached_input_tokens ?? 0 },
    };
  };

  /** Adds a report of the agent holding the run's claim at `now`; false (nothing written) otherwise. */
  const recordActivity = db.transaction((runId: string, agentId: string, now: number, report: ActivityReport): boolean => {
    if (!holdsClaim.get({ id: runId, agentId, now })) return false;
    const current = activityOf(runId) ?? { model: null, lines: [], usage: null };
    const lines = report.line === undefined ? current.lines : [...current.lines, { at: now, text: report.line }].slice(-keptActivityLines);
    const usage: TokenUsage | null = report.usage ? addUsage(current.usage ?? noUsage, report.usage) : current.usage;
    upsert.run({
      runId,
      model: report.model ?? current.model,
      lines: JSON.stringify(lines),
      inputTokens: usage?.inputTokens ?? null,
      outputTokens: usage?.outputTokens ?? null,
      cachedInputTokens: usage?.cachedInputTokens ?? null,
    });
    touch.run({ id: runId, now });
    return true;
  });

  return { activityOf, recordActivity };
}
