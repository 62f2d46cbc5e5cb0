import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { startServer, type TandemServer } from '../../server/index.ts';
import type { ClaimsInput } from '../../server/auth/tokens.ts';
import Database from 'better-sqlite3';
import pg from 'pg';
import { inject } from 'vitest';
import { revokeInDatabase, revokeInDataDir } from '../../server/auth/revoke.ts';
import { openStore } from '../../server/store/open-store.ts';
import type { Store } from '../../server/store/store.ts';
import { signTestToken } from './test-tokens.ts';
import { postgresUrlIn } from './store-backends.ts';
import type { AgentChoice, ServerOptions } from '../../server/config.ts';
import type { Limits } from '../../server/limits.ts';
import type { Role } from '../../shared/protocol/claims.ts';

export interface ApiRequest {
  method?: string;
  /** Sent as JSON, unless it is a string, which is sent as it is. */
  body?: unknown;
  /** Defaults to the owner's (an editor's) token; null sends no Authorization header. */
  token?: string | null;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  /** Parsed JSON when the response is JSON, else the text. */
  body: any;
  headers: Headers;
}

export interface TestServer {
  url: string;
  /** `ws://127.0.0.1:PORT/collab` */
  wsUrl: string;
  port: number;
  dataDir: string;
  /** The PostgreSQL database the server runs on (`TANDEM_TEST_STORE=postgres` or `databaseUrl`); null on SQLite in `dataDir`. */
  databaseUrl: string | null;
  ownerToken: string;
  /** A token for a new principal of `role`; `extra` may set name, doc, ops or sub. */
  token(role: Role, extra?: Partial<Omit<ClaimsInput, 'role'>>): string;
  api(path: string, request?: ApiRequest): Promise<ApiResponse>;
  /**
   * Runs one statement on the server's database behind its back (SQLite or PostgreSQL alike;
   * `?` marks each parameter); for tests that damage or inspect stored rows, mostly while the
   * server is stopped.
   */
  exec(sql: string, params?: unknown[]): Promise<void>;
  /** Revokes a token id as `tandem revoke` does, on the server's backend. */
  revoke(jti: string, doc: string | null): Promise<void>;
  /** Opens the server's store (SQLite or PostgreSQL) once more, as a command-line tool would. */
  openStore(): Promise<Store>;
  /** Creates a document as the owner through `POST /api/docs`; its id. Throws unless 201. */
  createDoc(title: string, markdown?: string): Promise<string>;
  /** Closes the server, keeping its data. */
  stop(): Promise<void>;
  /** Closes the server if it runs and starts it again on the same port and data; `changes` replace options from then on. */
  restart(changes?: { oldestProtocol?: number }): Promise<void>;
  /** Closes the server and removes its data directory if the helper made it. */
  dispose(): Promise<void>;
}

let principals = 0;

/**
 * Starts a real Tandem server on 127.0.0.1 (a free port by default) with a temporary data dir.
 * No agent runs in it unless `agent: 'reference'` (or `'openai'` with `openai`, `'anthropic'` with `anthropic`): tests start the
 * agents they need (helpers/agents.ts). `leaseMs` defaults to the server's default (30 s), `leaseClock` to `Date.now`; `limits` to the
 * server's defaults (server/limits.ts).
 */
export async function startTestServer(
  opts: { dataDir?: string; port?: number; distDir?: string; leaseMs?: number; leaseClock?: () => number; agent?: AgentChoice; openai?: ServerOptions['openai']; anthropic?: ServerOptions['anthropic']; modelLimits?: ServerOptions['modelLimits']; limits?: Partial<Limits>; asideTimeoutMs?: number; databaseUrl?: string; redisUrl?: string; oldestProtocol?: number; publicUrl?: string; versionEveryMs?: number } = {},
): Promise<TestServer> {
  const ownsDataDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'tandem-test-'));
  const ownSchema = opts.databaseUrl === undefined ? await schemaForTheSuite() : null;
  const databaseUrl = opts.databaseUrl ?? ownSchema?.url;
  let oldestProtocol = opts.oldestProtocol;
  const start = (port: number) =>
    startServer({ oldestProtocol, port, host: '127.0.0.1', dataDir, distDir: opts.distDir, quiet: true, leaseMs: opts.leaseMs ?? 30_000, leaseClock: opts.leaseClock, agent: opts.agent ?? 'off', openai: opts.openai, anthropic: opts.anthropic, modelLimits: opts.modelLimits, limits: opts.limits, asideTimeoutMs: opts.asideTimeoutMs, databaseUrl, redisUrl: opts.redisUrl, publicUrl: opts.publicUrl ?? null, versionEveryMs: opts.versionEveryMs });
  let server: TandemServer | null = await start(opts.port ?? 0);
  const first = server;
  const port = server.port;
  const url = server.url;

  const stop = async () => {
    const running = server;
    server = null;
    await running?.close();
  };

  const testServer: TestServer = {
    url,
    wsUrl: `ws://127.0.0.1:${port}/collab`,
    port,
    dataDir,
    databaseUrl: databaseUrl ?? null,
    ownerToken: first.ownerToken,
    token(role, extra = {}) {
      principals += 1;
      return signTestToken(dataDir, { sub: `${role}-${principals}`, name: `${role} ${principals}`, role, ...extra });
    },
    api: (path, request = {}) => callApi(url, first.ownerToken, path, request),
    exec: (sql, params = []) => execIn(databaseUrl ?? null, dataDir, sql, params),
    async revoke(jti, doc) {
      await (databaseUrl ? revokeInDatabase(databaseUrl, jti, doc) : revokeInDataDir(dataDir, jti, doc));
    },
    openStore: () => openStore({ dataDir, databaseUrl: databaseUrl ?? null }),
    async createDoc(title, markdown) {
      const created = await testServer.api('/api/docs', { method: 'POST', body: { title, markdown } });
      if (created.status !== 201) throw new Error(`POST /api/docs answered ${created.status}: ${JSON.stringify(created.body)}`);
      return created.body.id;
    },
    stop,
    async restart(changes = {}) {
      await stop();
      if ('oldestProtocol' in changes) oldestProtocol = changes.oldestProtocol;
      server = await start(port);
    },
    async dispose() {
      await stop();
      await ownSchema?.drop();
      if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return testServer;
}

async function execIn(databaseUrl: string | null, dataDir: string, sql: string, params: unknown[]): Promise<void> {
  if (databaseUrl === null) {
    const db = new Database(join(dataDir, 'tandem.sqlite'));
    try {
      db.prepare(sql).run(...params);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    let n = 0;
    await client.query(sql.replace(/\?/g, () => `$${++n}`), params);
  } finally {
    await client.end();
  }
}

/**
 * With `TANDEM_TEST_STORE=postgres` every test server that is not given a database runs on a
 * schema of its own, on the PostgreSQL server of the `integration-postgres` project
 * (vitest.config.ts) or `TEST_DATABASE_URL`, so that an integration test runs on PostgreSQL as it
 * does on SQLite. Null otherwise: SQLite in the data directory.
 */
async function schemaForTheSuite(): Promise<{ url: string; drop(): Promise<void> } | null> {
  if (process.env.TANDEM_TEST_STORE !== 'postgres') return null;
  const server = inject('postgresUrl') ?? process.env.TEST_DATABASE_URL;
  if (!server) throw new Error('TANDEM_TEST_STORE=postgres needs a PostgreSQL server: run the integration-postgres project, or set TEST_DATABASE_URL');
  const schema = `t_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  return {
    url: postgresUrlIn(server, schema),
    async drop() {
      const client = new pg.Client({ connectionString: server });
      await client.connect();
      try {
        // IF EXISTS: disposing of a server twice is harmless, as it is on SQLite.
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A request to the API of the server at `url`, with `ownerToken` unless the request names a token. */
export async function callApi(url: string, ownerToken: string, path: string, request: ApiRequest = {}): Promise<ApiResponse> {
  const token = request.token === undefined ? ownerToken : request.token;
  const headers: Record<string, string> = { ...request.headers };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (request.body !== undefined) {
    body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await send(url + path, request.method ?? 'GET', headers, body);
  const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json');
  return { status: response.status, body: isJson ? JSON.parse(response.text) : response.text, headers: response.headers };
}

/**
 * One HTTP request on a fresh connection: a pooled keep-alive socket would outlive a restart
 * of the server and fail the first request after it.
 */
function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<{ status: number; text: string; headers: Headers }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: responseHeaders });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
