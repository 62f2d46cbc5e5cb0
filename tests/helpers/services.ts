import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/*
 * PostgreSQL and Redis for the tests. CI (.ci/run) starts both and exports TEST_DATABASE_URL
 * and TEST_REDIS_URL; without them a test file starts its own private server from Debian's
 * binaries and stops it when it ends. When neither is possible the helper throws, so a test
 * that needs PostgreSQL or Redis fails with the reason instead of being skipped.
 */

const postgresBin = '/usr/lib/postgresql/15/bin';

export interface Service {
  url: string;
  stop(): Promise<void>;
}

/** The URL of a PostgreSQL server with a superuser: TEST_DATABASE_URL, or a private server started now. */
export async function usePostgres(): Promise<Service> {
  const given = process.env.TEST_DATABASE_URL;
  if (given) return { url: given, stop: async () => {} };
  if (!existsSync(join(postgresBin, 'initdb'))) {
    throw new Error(`PostgreSQL is needed for this test: set TEST_DATABASE_URL or install Debian's postgresql (no ${postgresBin}/initdb)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'tandem-pg-'));
  const data = join(dir, 'data');
  const asUser = runAsUnprivileged(dir);
  const port = await freePort();
  execFileSync(asUser[0], [...asUser.slice(1), join(postgresBin, 'initdb'), '-D', data, '-U', 'tandem', '--auth=trust', '-E', 'UTF8', '--no-sync'], { stdio: 'ignore' });
  const server = spawn(
    asUser[0],
    [...asUser.slice(1), join(postgresBin, 'postgres'), '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200'],
    { stdio: 'ignore' },
  );
  const url = `postgres://tandem@127.0.0.1:${port}/postgres`;
  await waitUntilReady(server, () => acceptsQueries(url), 'PostgreSQL');
  return { url, stop: () => stopProcess(server, dir) };
}

/** The URL of a Redis server: TEST_REDIS_URL, or a private one started now. */
export async function useRedis(): Promise<Service> {
  const given = process.env.TEST_REDIS_URL;
  if (given) return { url: given, stop: async () => {} };
  if (!existsSync('/usr/bin/redis-server')) {
    throw new Error('Redis is needed for this test: set TEST_REDIS_URL or install Debian\'s redis-server (apt-get install -y redis-server)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'tandem-redis-'));
  const port = await freePort();
  const server = spawn('/usr/bin/redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await waitUntilReady(server, () => probe(port), 'Redis');
  return { url: `redis://127.0.0.1:${port}`, stop: () => stopProcess(server, dir) };
}

/**
 * PostgreSQL refuses to run as root: as root, run it as the `postgres` user, which then owns
 * `dir`. setpriv execs the command in place, so a signal to the child reaches PostgreSQL itself.
 */
function runAsUnprivileged(dir: string): string[] {
  if (process.getuid?.() !== 0) return ['/usr/bin/env'];
  execFileSync('chown', ['postgres:postgres', dir]);
  chmodSync(dir, 0o700);
  return ['/usr/bin/setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups', '--'];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Whether PostgreSQL answers a query (it accepts connections before it is ready for them). */
async function acceptsQueries(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Whether something accepts TCP connections on the port. */
function probe(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}


async function waitUntilReady(server: ChildProcess, ready: () => Promise<boolean>, what: string): Promise<void> {
  // A test process that ends without stopping its services (a crash, a timeout) takes them along.
  const orphaned = () => server.kill('SIGKILL');
  process.once('exit', orphaned);
  server.once('exit', () => process.off('exit', orphaned));
  let exited = false;
  server.once('exit', () => (exited = true));
  for (let attempt = 0; attempt < 600; attempt++) {
    if (exited) throw new Error(`${what} exited before it accepted connections`);
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  server.kill('SIGKILL');
  throw new Error(`${what} did not accept connections within 30 s`);
}

async function stopProcess(server: ChildProcess, dir: string): Promise<void> {
  if (server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    // SIGINT is PostgreSQL's fast shutdown; Redis stops on it too.
    server.kill('SIGINT');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
}
