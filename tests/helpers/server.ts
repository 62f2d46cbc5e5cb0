import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { startServer, type TandemServer } from '../../server/index.ts';
import type { ClaimsInput } from '../../server/auth/tokens.ts';
import { signTestToken } from './test-tokens.ts';
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
  ownerToken: string;
  /** A token for a new principal of `role`; `extra` may set name, doc, ops or sub. */
  token(role: Role, extra?: Partial<Omit<ClaimsInput, 'role'>>): string;
  api(path: string, request?: ApiRequest): Promise<ApiResponse>;
  /** Creates a document as the owner through `POST /api/docs`; its id. Throws unless 201. */
  createDoc(title: string, markdown?: string): Promise<string>;
  /** Closes the server, keeping its data. */
  stop(): Promise<void>;
  /** Closes the server if it runs and starts it again on the same port and data. */
  restart(): Promise<void>;
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
  opts: { dataDir?: string; port?: number; distDir?: string; leaseMs?: number; leaseClock?: () => number; agent?: AgentChoice; openai?: ServerOptions['openai']; anthropic?: ServerOptions['anthropic']; modelLimits?: ServerOptions['modelLimits']; limits?: Partial<Limits>; asideTimeoutMs?: number; databaseUrl?: string; redisUrl?: string } = {},
): Promise<TestServer> {
  const ownsDataDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'tandem-test-'));
  const start = (port: number) =>
    startServer({ port, host: '127.0.0.1', dataDir, distDir: opts.distDir, quiet: true, leaseMs: opts.leaseMs ?? 30_000, leaseClock: opts.leaseClock, agent: opts.agent ?? 'off', openai: opts.openai, anthropic: opts.anthropic, modelLimits: opts.modelLimits, limits: opts.limits, asideTimeoutMs: opts.asideTimeoutMs, databaseUrl: opts.databaseUrl, redisUrl: opts.redisUrl });
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
    ownerToken: first.ownerToken,
    token(role, extra = {}) {
      principals += 1;
      return signTestToken(dataDir, { sub: `${role}-${principals}`, name: `${role} ${principals}`, role, ...extra });
    },
    api: (path, request = {}) => callApi(url, first.ownerToken, path, request),
    async createDoc(title, markdown) {
      const created = await testServer.api('/api/docs', { method: 'POST', body: { title, markdown } });
      if (created.status !== 201) throw new Error(`POST /api/docs answered ${created.status}: ${JSON.stringify(created.body)}`);
      return created.body.id;
    },
    stop,
    async restart() {
      await stop();
      server = await start(port);
    },
    async dispose() {
      await stop();
      if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return testServer;
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
