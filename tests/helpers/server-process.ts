import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ClaimsInput } from '../../server/auth/tokens.ts';
import type { Role } from '../../shared/protocol/claims.ts';
import { callApi, type TestServer } from './server.ts';
import { signTestToken } from './test-tokens.ts';

const main = fileURLToPath(new URL('./server-process-main.ts', import.meta.url));

/** A server in its own process: the members of a test server that the run and document helpers use, plus kill. */
export interface ServerProcess extends Pick<TestServer, 'url' | 'wsUrl' | 'port' | 'dataDir' | 'ownerToken' | 'token' | 'api' | 'createDoc'> {
  /** Kills the process with SIGKILL: no hook, no store, no close runs. Resolves once it is gone. */
  kill(): Promise<void>;
  /** Stops it with SIGTERM, as a person stops `npm start`: documents are stored, then it exits. */
  stop(): Promise<void>;
}

let principals = 0;

/**
 * Starts Tandem's real server in a child process on `dataDir`, on a free port; `env` adds to
 * its environment (`DATABASE_URL`, `REDIS_URL`).
 */
export async function startServerProcess(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', main, dataDir, '0'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<{ url: string; port: number; ownerToken: string }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
    child.once('exit', (code, signal) => reject(new Error(`the server process exited (${code ?? signal}) before it was ready`)));
  });
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  const server: ServerProcess = {
    ...ready,
    dataDir,
    wsUrl: `ws://127.0.0.1:${ready.port}/collab`,
    token(role: Role, extra: Partial<Omit<ClaimsInput, 'role'>> = {}) {
      principals += 1;
      return signTestToken(dataDir, { sub: `${role}-${principals}`, name: `${role} ${principals}`, role, ...extra });
    },
    api: (path, request) => callApi(ready.url, ready.ownerToken, path, request),
    async createDoc(title, markdown) {
      const created = await server.api('/api/docs', { method: 'POST', body: { title, markdown } });
      if (created.status !== 201) throw new Error(`POST /api/docs answered ${created.status}: ${JSON.stringify(created.body)}`);
      return created.body.id;
    },
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
  };
  return server;
}
