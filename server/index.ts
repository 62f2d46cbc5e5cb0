import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hocuspocus } from '@hocuspocus/server';
import { resolveServerOptions, type ServerOptions } from './config.ts';
import { loadSecret } from './auth/secret.ts';
import { signToken, type ClaimsInput } from './auth/tokens.ts';
import { openSqliteStore } from './store/sqlite-store.ts';
import { Auth } from './extensions/auth.ts';
import { Persistence } from './extensions/persistence.ts';
import { DocMetadata } from './extensions/doc-metadata.ts';
import { NotesGuard } from './extensions/notes-guard.ts';
import { AnnotationIndex } from './extensions/annotation-index.ts';
import { RunMirrorLoad } from './extensions/run-mirror-load.ts';
import { RunGc } from './extensions/run-gc.ts';
import { AgentStateless } from './extensions/agent-stateless.ts';
import { RunMirror } from './runs/run-mirror.ts';
import { RunScopes } from './runs/run-scopes.ts';
import { createRunServices, type RunServices } from './runs/run-services.ts';
import { startBuiltInAgent, localUrl } from './agents/built-in-agent.ts';
import { Router } from './http/router.ts';
import { createApiHandler, type RouteHandler } from './http/api.ts';
import { addDocRoutes } from './http/docs-routes.ts';
import { addAnnotationRoutes } from './http/annotations-routes.ts';
import { addRunRoutes } from './http/runs-routes.ts';
import { addAgentRoutes } from './http/agent-routes.ts';
import { createStaticHandler } from './http/static-files.ts';
import { createRequestHandler } from './http/app.ts';
import { attachCollabSocket } from './collab-socket.ts';
import { closeHocuspocus } from './shutdown.ts';

export type { ServerOptions } from './config.ts';
export type { ClaimsInput } from './auth/tokens.ts';

export interface TandemServer {
  /** `http://HOST:PORT`, without a trailing slash. */
  url: string;
  port: number;
  dataDir: string;
  /** An editor token for the principal "Owner". */
  ownerToken: string;
  signToken(claims: ClaimsInput): string;
  /** Closes connections, stores every open document and releases the port and the database. */
  close(): Promise<void>;
}

/**
 * Starts Tandem on one port: `/healthz`, the JSON API under `/api/`, the Hocuspocus WebSocket
 * at `/collab` and the built client for every other path; then, unless `agent` is 'off', the
 * reference agent as a client of that port.
 */
export async function startServer(given: Partial<ServerOptions> = {}): Promise<TandemServer> {
  const options = resolveServerOptions(given);
  const log = (error: unknown) => console.error('[tandem]', error);
  const secret = loadSecret(options.dataDir);
  const store = openSqliteStore(options.dataDir);
  const scopes = new RunScopes(store.runs);
  let runs: RunServices | undefined;

  const hocuspocus = new Hocuspocus({
    quiet: true,
    extensions: [
      new Auth({ secret, store }),
      // Before NotesGuard: both refuse sync messages in beforeSync, and NotesGuard must be last.
      new Persistence(store.updates, log),
      new NotesGuard(),
      new DocMetadata(store),
      new AnnotationIndex(store.annotationDocs, log),
      new RunMirrorLoad(store.runs),
      new RunGc(scopes),
      new AgentStateless(() => runs!.agents, log),
    ],
  });
  const mirror = new RunMirror(hocuspocus, store.runs);
  runs = createRunServices({ store, hocuspocus, mirror, scopes, leaseMs: options.leaseMs, onError: log });

  const router = new Router<RouteHandler>();
  addDocRoutes(router, { store, hocuspocus });
  addAnnotationRoutes(router, { store, hocuspocus });
  addRunRoutes(router, { store, hocuspocus, mirror, runs });
  addAgentRoutes(router, runs.agents);

  const httpServer = createServer(
    createRequestHandler({
      api: createApiHandler({ router, secret, onError: log }),
      static: createStaticHandler(options.distDir),
      onError: log,
    }),
  );
  const collab = attachCollabSocket(httpServer, hocuspocus);

  try {
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(options.port, options.host, () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await runs.close();
    await collab.close();
    await store.close();
    throw error;
  }

  const { port } = httpServer.address() as AddressInfo;
  const sign = (claims: ClaimsInput) => signToken(secret, claims);
  let closing: Promise<void> | undefined;
  const agent = options.agent === 'reference' ? startBuiltInAgent({ url: localUrl(options.host, port), sign, quiet: options.quiet }) : null;

  return {
    url: `http://${urlHost(options.host)}:${port}`,
    port,
    dataDir: options.dataDir,
    ownerToken: sign({ sub: 'owner', name: 'Owner', role: 'editor' }),
    signToken: sign,
    close() {
      closing ??= (async () => {
        await agent?.stop();
        await runs.close();
        const httpClosed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
        httpServer.closeIdleConnections();
        await collab.close();
        await closeHocuspocus(hocuspocus);
        await store.close();
        httpServer.closeAllConnections();
        await httpClosed;
      })();
      return closing;
    },
  };
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
