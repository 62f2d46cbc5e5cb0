/** Nearest-rank percentile of `values` (need not be sorted); NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(values: readonly number[]): Summary {
  const n = values.length;
  let max = -Infinity;
  let sum = 0;
  for (const value of values) {
    if (value > max) max = value;
    sum += value;
  }
  return { n, p50: percentile(values, 50), p99: percentile(values, 99), max: n ? max : NaN, mean: n ? sum / n : NaN };
}

/** The median of `runs` timings of `fn` (milliseconds), after one unmeasured warm-up call. */
export async function medianTime(runs: number, fn: () => unknown | Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return percentile(times, 50);
}
