/**
 * The goals the project has set for its figures (issue #16, "within a breath of the bare
 * libraries"), printed beside each figure they apply to. A goal is either a ratio to the row's
 * baseline or an absolute figure; rows without a goal print "—". A floor (raw Yjs or a bare
 * store read in one process, docs/benchmarks.md) is printed without a goal: the ratio to it is
 * what the network, the server and the protocol cost, not a bound the project sets.
 */
import type { Row } from './types.ts';
import { ratioOf } from './ratio.ts';

export interface Goal {
  /** Which rows the goal applies to. */
  applies(row: Row): boolean;
  /** The bound: a ratio (tandem ÷ baseline) or the row's own figure in its unit. */
  bound: { ratio: number } | { value: number };
}

const ratioAtMost = (ratio: number) => ({ ratio });

export const goals: readonly Goal[] = [
  {
    applies: (row) => row.bench === 'applier' && row.metric === 'validate + apply' && row.baselineName.startsWith('editor-bound'),
    bound: ratioAtMost(0.5),
  },
  {
    applies: (row) => row.bench === 'sync' && row.metric === 'latency p99' && /^(10|50) receivers/.test(row.case),
    bound: ratioAtMost(1.1),
  },
  {
    applies: (row) => row.bench === 'browser' && row.metric === 'navigation → editable, server up',
    bound: ratioAtMost(1.2),
  },
  {
    applies: (row) => row.bench === 'browser' && row.metric === 'keypress → painted, median',
    bound: ratioAtMost(1.2),
  },
  {
    applies: (row) =>
      row.bench === 'browser' && row.case === 'loaded with the page' && row.metric === 'client JavaScript, gzip' && row.baselineName.startsWith('Tiptap'),
    bound: ratioAtMost(1),
  },
  {
    applies: (row) => row.bench === 'persistence' && row.metric === 'fresh peer load' && row.baselineName === 'bare Hocuspocus + SQLite',
    bound: ratioAtMost(1),
  },
  { applies: (row) => row.bench === 'persistence' && row.metric === 'edits durable/s', bound: { value: 5_000 } },
  {
    applies: (row) => row.bench === 'run-history' && ['Send, median', 'runs mirror cold load, median', 'runs mirror bytes'].includes(row.metric),
    bound: ratioAtMost(1.1),
  },
  { applies: (row) => row.bench === 'heavy' && /^(POST|GET) /.test(row.metric), bound: { value: 1_000 } },
  { applies: (row) => row.bench === 'agent-run' && row.metric === "Tandem's time per tool call, median", bound: { value: 5 } },
  { applies: (row) => row.bench === 'agent-run' && row.metric.endsWith('→ review on the runs mirror, median'), bound: { value: 20 } },
  { applies: (row) => row.bench === 'heavy' && row.metric === "server's longest event-loop stall", bound: { value: 50 } },
];

export interface GoalOutcome {
  /** The goal as printed: "≤ 2×", "≥ 5,000/s". */
  text: string;
  met: boolean | null;
}

/** The goal that applies to `row` and whether the row meets it (null: no figure to judge). */
export function goalFor(row: Row): GoalOutcome | null {
  const goal = goals.find((candidate) => candidate.applies(row));
  if (!goal) return null;
  const lower = row.better === 'lower';
  if ('ratio' in goal.bound) {
    const ratio = ratioOf(row);
    const bound = goal.bound.ratio;
    return {
      text: `${lower ? '≤' : '≥'} ${bound}×`,
      met: ratio === null ? null : lower ? ratio <= bound : ratio >= bound,
    };
  }
  const bound = goal.bound.value;
  const unit = row.unit === 'per-s' ? '/s' : row.unit === 'ms' ? ' ms' : '';
  return {
    text: `${lower ? '≤' : '≥'} ${bound.toLocaleString('en-US')}${unit}`,
    met: row.tandem === null ? null : lower ? row.tandem <= bound : row.tandem >= bound,
  };
}

/** The goal column's cell: "≤ 2× met", "≤ 2× NOT MET", or "—". */
export function formatGoal(outcome: GoalOutcome | null): string {
  if (!outcome) return '—';
  if (outcome.met === null) return outcome.text;
  return `${outcome.text} ${outcome.met ? 'met' : 'NOT MET'}`;
}
