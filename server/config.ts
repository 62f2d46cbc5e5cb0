import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ServerOptions {
  /** 0 picks a free port. */
  port: number;
  host: string;
  dataDir: string;
  /** The built client (Vite's output). */
  distDir: string;
  /** No log lines, errors aside. */
  quiet: boolean;
}

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * Complete options: those given win, then the environment (`PORT`, `HOST`, `DATA_DIR`), then
 * the defaults. Paths come back absolute. Throws a RangeError for a malformed `PORT`.
 */
export function resolveServerOptions(
  given: Partial<ServerOptions> = {},
  env: NodeJS.ProcessEnv = process.env,
): ServerOptions {
  return {
    port: given.port ?? parsePort(env.PORT),
    host: given.host ?? (env.HOST || '127.0.0.1'),
    dataDir: resolve(given.dataDir ?? (env.DATA_DIR || './data')),
    distDir: resolve(given.distDir ?? resolve(repoRoot, 'dist')),
    quiet: given.quiet ?? false,
  };
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value === '') return 8787;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new RangeError(`PORT must be a number from 0 to 65535, not "${value}"`);
  return port;
}

/** The data directory the environment names, for commands that run without a server. */
export function dataDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.DATA_DIR || './data');
}
