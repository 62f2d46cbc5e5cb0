import type { Row } from './types.ts';

/** tandem / baseline, or null when either is missing or the baseline is zero. */
export function ratioOf(row: Row): number | null {
  if (row.unit === 'check' || row.tandem === null || row.baseline === null || row.baseline === 0) return null;
  return row.tandem / row.baseline;
}
