/** What every benchmark module exports and returns; `bench/run.ts` prints and saves it. */

/** How a figure is printed; `check` is 1 (yes) or 0 (no). */
export type Unit = 'ms' | 's' | 'bytes' | 'per-s' | 'count' | 'check';

export interface Row {
  /** The benchmark's name, as `--only` takes it. */
  bench: string;
  /** What was measured on: a size, a number of peers, a trace. */
  case: string;
  metric: string;
  unit: Unit;
  /** `lower`: a smaller figure is better (times, bytes); `higher`: a larger one is (rates). */
  better: 'lower' | 'higher';
  tandem: number | null;
  baseline: number | null;
  /** What the baseline is, in a few words ("bare Hocuspocus", "raw Yjs"). */
  baselineName: string;
}

export interface BenchContext {
  quick: boolean;
  /** The repository root, absolute. */
  repoRoot: string;
  /** Progress, on stderr; never part of the table. */
  log(message: string): void;
  /** A fresh directory under the OS temp dir, removed when the benchmark ends. */
  tempDir(label: string): string;
}

export interface BenchResult {
  rows: Row[];
  /** Set when the benchmark could not run at all; the reason is printed instead of rows. */
  skipped?: string;
  /** Caveats worth printing under the table. */
  notes?: string[];
}

export interface Benchmark {
  name: string;
  run(ctx: BenchContext): Promise<BenchResult>;
}

/** A row builder bound to one benchmark. */
export function rowsFor(bench: string) {
  const rows: Row[] = [];
  return {
    rows,
    add(row: Omit<Row, 'bench'>): void {
      rows.push({ bench, ...row });
    },
  };
}
