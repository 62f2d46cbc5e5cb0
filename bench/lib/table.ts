import type { Row, Unit } from './types.ts';
import { formatGoal, goalFor } from './goals.ts';
import { ratioOf } from './ratio.ts';


export function formatValue(value: number | null, unit: Unit): string {
  if (value === null || Number.isNaN(value)) return '—';
  switch (unit) {
    case 'ms':
      return `${decimals(value)} ms`;
    case 's':
      return `${value.toFixed(2)} s`;
    case 'bytes':
      return formatBytes(value);
    case 'per-s':
      return `${Math.round(value).toLocaleString('en-US')}/s`;
    case 'count':
      return Math.round(value).toLocaleString('en-US');
    case 'check':
      return value ? 'yes' : 'NO';
  }
}

export function formatBytes(bytes: number): string {
  const abs = Math.abs(bytes);
  if (abs < 1024) return `${Math.round(bytes)} B`;
  if (abs < 1024 * 1024) return `${decimals(bytes / 1024)} KiB`;
  return `${decimals(bytes / (1024 * 1024))} MiB`;
}

function decimals(value: number): string {
  const abs = Math.abs(value);
  if (abs < 1) return value.toFixed(3);
  if (abs < 10) return value.toFixed(2);
  if (abs < 100) return value.toFixed(1);
  return Math.round(value).toLocaleString('en-US');
}

export function formatRatio(ratio: number | null): string {
  if (ratio === null || !Number.isFinite(ratio)) return '—';
  return `${ratio < 10 ? ratio.toFixed(2) : ratio.toFixed(1)}×`;
}

/** One plain-text table of every row: benchmark | case | metric | tandem | baseline | ratio | goal | baseline is. */
export function renderTable(rows: readonly Row[]): string {
  const header = ['benchmark', 'case', 'metric', 'tandem', 'baseline', 'ratio', 'goal', 'baseline is'];
  const body = rows.map((row) => [
    row.bench,
    row.case,
    `${row.metric} ${row.unit === 'check' ? '' : row.better === 'lower' ? '↓' : '↑'}`.trimEnd(),
    formatValue(row.tandem, row.unit),
    formatValue(row.baseline, row.unit),
    formatRatio(ratioOf(row)),
    formatGoal(goalFor(row)),
    row.baselineName,
  ]);
  const right = new Set([3, 4, 5]);
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((cells) => cells[column].length)));
  const line = (cells: string[]) =>
    cells.map((cell, column) => (right.has(column) ? cell.padStart(widths[column]) : cell.padEnd(widths[column]))).join(' | ').trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('-|-');
  const out = [line(header), rule];
  let previous = '';
  for (const [index, cells] of body.entries()) {
    if (index > 0 && rows[index].bench !== previous) out.push(rule);
    previous = rows[index].bench;
    out.push(line(cells));
  }
  return out.join('\n');
}
