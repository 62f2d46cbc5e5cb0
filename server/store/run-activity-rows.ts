import { addUsage, keptActivityLines, noUsage, type TokenUsage } from '../../shared/wire/activity.ts';
import type { ActivityReport, RunActivity } from './run-store.ts';

/**
 * The `run_activity` row of either backend (MODEL8): SQLite answers integers as numbers,
 * PostgreSQL its BIGINTs as strings.
 */
export interface ActivityRow {
  model: string | null;
  lines: string;
  input_tokens: number | string | null;
  output_tokens: number | string | null;
  cached_input_tokens: number | string | null;
}

export function toActivity(row: ActivityRow): RunActivity {
  return {
    model: row.model,
    lines: JSON.parse(row.lines) as RunActivity['lines'],
    usage:
      row.input_tokens === null
        ? null
        : { inputTokens: Number(row.input_tokens), outputTokens: Number(row.output_tokens ?? 0), cachedInputTokens: Number(row.cached_input_tokens ?? 0) },
  };
}

/** The row's values after `report` at `now`: the line appended (the last `keptActivityLines` kept), usage summed. */
export function withReport(current: RunActivity | null, now: number, report: ActivityReport) {
  const before = current ?? { model: null, lines: [], usage: null };
  const lines = report.line === undefined ? before.lines : [...before.lines, { at: now, text: report.line }].slice(-keptActivityLines);
  const usage: TokenUsage | null = report.usage ? addUsage(before.usage ?? noUsage, report.usage) : before.usage;
  return {
    model: report.model ?? before.model,
    lines: JSON.stringify(lines),
    inputTokens: usage?.inputTokens ?? null,
    outputTokens: usage?.outputTokens ?? null,
    cachedInputTokens: usage?.cachedInputTokens ?? null,
  };
}
