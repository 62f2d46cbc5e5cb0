/**
 * A server under measurement, alone in its own process (run by `servers.ts` with
 * `node --expose-gc --import tsx`), so that its heap and CPU figures hold nothing of the
 * benchmark's peers. argv[2] is a JSON `ServerSpec`. Once listening it sends
 * `{type: 'ready', address}`; then it answers `{id, type}` requests with `{id, result}`, and a
 * `bare-sqlite` server reports each write to its store (`StoredMessage`).
 */
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as Y from 'yjs';
import { Server } from '@hocuspocus/server';
import { Database } from '@hocuspocus/extension-database';
import BetterSqlite3 from 'better-sqlite3';
import { startServer } from '../../server/index.ts';
import { sqliteSchema, type ServerAddress, type ServerRequest, type ServerSpec, type StoredMessage } from './server-spec.ts';

const spec = JSON.parse(process.argv[2] ?? '{}') as ServerSpec;

/**
 * The benchmarks open hundreds of sockets with one token from one address and replay traces
 * as fast as they can: the per-client limits would measure themselves, so they are lifted.
 */
const unlimited = { burst: 1e9, perSecond: 1e9 };
const benchLimits = {
  socketsPerIp: 1e6,
  socketsPerSubject: 1e6,
  socketMessages: unlimited,
  httpRequests: unlimited,
  docCreations: unlimited,
  longPollsPerSubject: 1e6,
};

async function start(): Promise<{ address: ServerAddress; close(): Promise<void> }> {
  if (spec.kind === 'tandem') {
    const server = await startServer({
      port: 0,
      host: '127.0.0.1',
      dataDir: spec.dataDir,
      distDir: spec.distDir,
      quiet: true,
      limits: benchLimits,
      databaseUrl: spec.databaseUrl ?? null,
      redisUrl: spec.redisUrl ?? null,
      ...(spec.agent ? { agent: spec.agent } : {}),
    });
    return {
      address: { httpUrl: server.url, wsUrl: `ws://127.0.0.1:${server.port}/collab`, token: server.ownerToken },
      close: () => server.close(),
    };
  }
  const db = spec.kind === 'bare-sqlite' ? new BetterSqlite3(join(spec.dataDir!, 'hocuspocus.sqlite')) : null;
  const server = new Server({
    port: 0,
    address: '127.0.0.1',
    quiet: true,
    stopOnSignals: false,
    extensions: db ? [sqliteBlobs(db)] : [],
  });
  await server.listen();
  const { port } = server.address;
  return {
    address: { httpUrl: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}`, token: 'bare' },
    async close() {
      await server.destroy();
      db?.close();
    },
  };
}

/**
 * What `@hocuspocus/extension-sqlite` 4.7 does, line for line: one full-state blob per document,
 * better-sqlite3 with its default settings. (The package is not a dependency of Tandem.)
 */
function sqliteBlobs(db: BetterSqlite3.Database): Database {
  db.exec(sqliteSchema);
  const select = db.prepare<[string], { data: Buffer }>('SELECT data FROM "documents" WHERE name = ? ORDER BY rowid DESC');
  const upsert = db.prepare('INSERT INTO "documents" ("name", "data") VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET data = excluded.data');
  return new Database({
    fetch: async ({ documentName }) => select.get(documentName)?.data ?? null,
    store: async ({ documentName, state }) => {
      upsert.run(documentName, state);
      // Tells the benchmark what is now durable: a reader polling this file in SQLite's default
      // rollback-journal mode would hold locks that delay the very write it waits for.
      const stored: StoredMessage = { type: 'stored', name: documentName, stateVector: Buffer.from(Y.encodeStateVectorFromUpdate(state)).toString('base64') };
      process.send!(stored);
    },
  });
}

function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  gc();
  gc();
}

const server = await start();
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();
process.send!({ type: 'ready', address: server.address });

process.on('message', async (message: ServerRequest) => {
  try {
    let result: unknown = null;
    if (message.type === 'memory') {
      collectGarbage();
      // A second pass after the finalizers of the first have run.
      await new Promise((resolve) => setTimeout(resolve, 50));
      collectGarbage();
      result = process.memoryUsage();
    } else if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      result = (user + system) / 1000;
    } else if (message.type === 'stall') {
      // The longest event-loop delay since the previous 'stall' request, in milliseconds.
      result = loopDelay.max / 1e6;
      loopDelay.reset();
    } else if (message.type === 'stop') {
      await server.close();
    }
    process.send!({ id: message.id, result });
    if (message.type === 'stop') process.disconnect();
  } catch (error) {
    process.send!({ id: message.id, error: String(error instanceof Error ? error.stack : error) });
  }
});

// The benchmark went away (or is done): nothing may outlive it.
process.on('disconnect', () => {
  void server.close().finally(() => process.exit(0));
});
