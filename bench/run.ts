/**
 * `npm run bench [-- --quick] [-- --only NAME[,NAME…]] [-- --cpu-prof]`: runs the benchmarks, prints one table
 * in which every figure stands beside its baseline from the same run, and writes
 * `bench/results.json`. Never part of `npm test`.
 */
import { cpus, totalmem, platform, release, tmpdir } from 'node:os';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { benchmarks } from './benchmarks.ts';
import { renderTable } from './lib/table.ts';
import { ratioOf } from './lib/ratio.ts';
import { goalFor } from './lib/goals.ts';
import type { BenchContext, Row } from './lib/types.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

function parseArgs(argv: string[]): { quick: boolean; only: string[] | null } {
  let quick = false;
  let only: string[] | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') quick = true;
    else if (arg === '--cpu-prof') process.env.TANDEM_BENCH_CPU_PROF = join(repoRoot, 'bench', 'profiles');
    else if (arg === '--full') quick = false;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      const value = arg === '--only' ? argv[++i] : arg.slice('--only='.length);
      if (!value) throw new RangeError('--only takes a benchmark name');
      only = value.split(',').map((name) => name.trim());
    } else throw new RangeError(`unknown argument ${arg} (use --quick, --only NAME, --cpu-prof)`);
  }
  const names = benchmarks.map((bench) => bench.name);
  for (const name of only ?? []) {
    if (!names.includes(name)) throw new RangeError(`no benchmark "${name}"; there are: ${names.join(', ')}`);
  }
  return { quick, only };
}

function machine() {
  const cores = cpus();
  let commit: string;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    commit = 'unknown';
  }
  return {
    cores: cores.length,
    cpu: cores[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    os: `${platform()} ${release()}`,
    commit,
  };
}

async function main(): Promise<void> {
  const { quick, only } = parseArgs(process.argv.slice(2));
  const host = machine();
  const started = new Date();
  const header = `Tandem benchmarks (${quick ? 'quick' : 'full'} mode) · ${host.cores} cores (${host.cpu}) · ${host.memoryGiB} GiB · Node ${host.node} · ${host.os} · commit ${host.commit}`;
  console.log(header);

  const rows: Row[] = [];
  const outcomes: { name: string; status: 'ok' | 'skipped' | 'failed'; reason?: string; seconds: number; notes: string[] }[] = [];
  for (const bench of benchmarks) {
    if (only && !only.includes(bench.name)) continue;
    const dirs: string[] = [];
    const ctx: BenchContext = {
      quick,
      repoRoot,
      log: (message) => process.stderr.write(`  … ${message}\n`),
      tempDir(label) {
        const dir = mkdtempSync(join(tmpdir(), `tandem-bench-${label}-`));
        dirs.push(dir);
        return dir;
      },
    };
    const t0 = performance.now();
    ctx.log(`${bench.name}: starting`);
    try {
      const result = await bench.run(ctx);
      rows.push(...result.rows);
      outcomes.push({
        name: bench.name,
        status: result.skipped ? 'skipped' : 'ok',
        reason: result.skipped,
        seconds: (performance.now() - t0) / 1000,
        notes: result.notes ?? [],
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      ctx.log(`${bench.name}: failed: ${error instanceof Error ? error.stack : reason}`);
      outcomes.push({ name: bench.name, status: 'failed', reason, seconds: (performance.now() - t0) / 1000, notes: [] });
    } finally {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
    ctx.log(`${bench.name}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }

  console.log('');
  console.log(renderTable(rows));
  console.log('');
  console.log('ratio = tandem ÷ baseline. ↓ lower is better (a ratio above 1 is Tandem\'s overhead); ↑ higher is better.');
  const judged = rows.map(goalFor).filter((goal) => goal !== null && goal.met !== null);
  const unmet = judged.filter((goal) => !goal!.met).length;
  console.log(`goals (issue #16): ${judged.length - unmet} of ${judged.length} figures meet theirs${unmet ? `; ${unmet} do not` : ''}.`);
  for (const outcome of outcomes) {
    if (outcome.status === 'failed') console.log(`${outcome.name}: FAILED: ${outcome.reason}`);
    else if (outcome.status === 'skipped') console.log(outcome.reason);
    for (const note of outcome.notes) console.log(`note: ${note}`);
  }
  const seconds = (Date.now() - started.getTime()) / 1000;
  console.log(`total ${seconds.toFixed(0)} s`);

  const resultsPath = join(repoRoot, 'bench', 'results.json');
  const results = {
    machine: host,
    mode: quick ? 'quick' : 'full',
    startedAt: started.toISOString(),
    seconds,
    benchmarks: outcomes,
    rows: rows.map((row) => ({ ...row, ratio: ratioOf(row), goal: goalFor(row) })),
  };
  writeFileSync(resultsPath, JSON.stringify(results, null, 2) + '\n');
  console.log(`wrote ${resultsPath}`);
  if (outcomes.some((outcome) => outcome.status === 'failed')) process.exitCode = 1;
}

// Everything is closed by now; a handle left open would be a bug, which this reports.
function exitWatch(): void {
  setTimeout(() => {
    process.stderr.write('bench: something was left open; exiting anyway\n');
    process.exit(process.exitCode ?? 0);
  }, 10_000).unref();
}

main().then(exitWatch, (error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 2;
  exitWatch();
});
