import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { repoRoot } from './config.ts';

/**
 * Builds the client with the project's own Vite (`vite build`, as `npx vite build` would run
 * it, but never fetching anything) unless `<distDir>/index.html` exists. Progress goes to
 * stderr. Resolves to whether a build is in place afterwards.
 */
export async function ensureClientBuilt(distDir: string): Promise<boolean> {
  if (existsSync(join(distDir, 'index.html'))) return true;
  if (distDir !== join(repoRoot, 'dist')) return false;
  process.stderr.write('Building the client with Vite (first start only)...\n');
  const started = Date.now();
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, [viteBin(), 'build'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(process.stderr, { end: false });
    child.stderr.pipe(process.stderr, { end: false });
    child.on('error', () => resolve(1));
    child.on('close', (exitCode) => resolve(exitCode ?? 1));
  });
  const built = code === 0 && existsSync(join(distDir, 'index.html'));
  process.stderr.write(
    built
      ? `Client built in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`
      : 'The client build failed; the server starts anyway and its pages say so.\n',
  );
  return built;
}

function viteBin(): string {
  const require = createRequire(join(repoRoot, 'package.json'));
  const manifest = require.resolve('vite/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: { vite: string } };
  return join(dirname(manifest), bin.vite);
}
