import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SafeUnloadHocuspocus } from './sync/hocuspocus-internals.ts';
import { resolveServerOptions, type ServerOptions } from './config.ts';
import { workPool } from './work/work-pool.ts';
import { openKeyRing } from './auth/keys.ts';
import { signToken, verifyToken, type ClaimsInput, type TokenVerifier } from './auth/tokens.ts';
import { startTokenSweeper } from './auth/token-sweeper.ts';
import { startCatalogueUpkeep } from './docs/catalogue-upkeep.ts';
import { ownerLinkSeconds } from './auth/expiry.ts';
import type { Limits } from './limits.ts';
import { SocketCounts } from './sync/collab-gate.ts';
import { SocketLimits } from './sync/socket-limits.ts';
import { ApiLimits } from './http/api-limits.ts';
import { openStore } from './store/open-store.ts';
import { Auth } from './extensions/auth.ts';
import { AuditConnections } from './extensions/audit-connections.ts';
import { Persistence } from './sync/persistence.ts';
import { sharedDocuments } from './extensions/shared-documents.ts';
import { FreshSync } from './sync/fresh-sync.ts';
import { DocMetadata } from './extensions/doc-metadata.ts';
import { SearchIndexing } from './extensions/search-indexing.ts';
import { NotesGuard } from './extensions/notes-guard.ts';
import { ShapeGuard } from './sync/shape-guard.ts';
import { NotesStrays } from './extensions/notes-strays.ts';
import { PresenceGuard } from './extensions/presence-guard.ts';
import { AnnotationIndex } from './extensions/annotation-index.ts';
import { RunMirrorLoad } from './extensions/run-mirror-load.ts';
import { NestedIds } from './extensions/nested-ids.ts';
import { RunGc } from './extensions/run-gc.ts';
import { TextWriters } from './extensions/text-writers.ts';
import { ClientOwners } from './authorship/client-owners.ts';
import { AuthorshipGuard } from './authorship/authorship-guard.ts';
import { addAuthorshipRoutes } from './http/authorship-routes.ts';
import { AgentStateless } from './extensions/agent-stateless.ts';
import { RunMirror } from './runs/run-mirror.ts';
import { AsideMirror } from './runs/aside-mirror.ts';
import { AsideService } from './runs/aside-service.ts';
import { RunScopes } from './runs/run-scopes.ts';
import { createRunServices } from './runs/run-services.ts';
import type { AgentService } from './runs/agent-service.ts';
import { LateBound } from './late-bound.ts';
import { startBuiltInAgent, localUrl } from './built-in-agent.ts';
import { Router } from './http/router.ts';
import { createApiHandler, type OpenRouteHandler, type RouteHandler } from './http/api.ts';
import { addDocRoutes } from './http/docs-routes.ts';
import { addCatalogueRoutes } from './http/catalogue-routes.ts';
import { addExportRoutes } from './http/export-routes.ts';
import { addAssetRoutes } from './http/asset-routes.ts';
import { addAnnotationRoutes } from './http/annotations-routes.ts';
import { addRunRoutes } from './http/runs-routes.ts';
import { addAgentRoutes } from './http/agent-routes.ts';
import { addAsideRoutes } from './http/aside-routes.ts';
import { addAuditRoutes } from './http/audit-routes.ts';
import { addInviteRoutes } from './http/invite-routes.ts';
import { addSessionRoutes } from './http/session-routes.ts';
import { createStaticHandler } from './http/static-files.ts';
import { addVersionRoutes } from './http/version-routes.ts';
import { VersionService } from './versions/versions.ts';
import { AutoVersions } from './versions/auto-versions.ts';
import { createRequestHandler } from './http/app.ts';
import { attachCollabSocket } from './sync/collab-socket.ts';
import { closeHocuspocus } from './shutdown.ts';

export type { ServerOptions } from './config.ts';
export type { Limits } from './limits.ts';
export type { ClaimsInput } from './auth/tokens.ts';

export interface TandemServer {
  /** `http://HOST:PORT`, without a trailing slash. */
  url: string;
  port: number;
  dataDir: string;
  /** An editor token for the principal "Owner", made at start; it expires after 7 days. */
  ownerToken: string;
  /** Signs a token with the data directory's newest key (jose, so asynchronous). */
  signToken(claims: ClaimsInput): Promise<string>;
  /** Closes connections, stores every open document and releases the port and the database. */
  close(): Promise<void>;
  /** The Hocuspocus extensions in the order their hooks run (server/sync/extension-priorities.ts). */
  extensions: { name: string; priority: number | undefined }[];
}

/**
 * Starts Tandem on one port: `/healthz`, the JSON API under `/api/`, the Hocuspocus WebSocket
 * at `/collab` and the built client for every other path; then, unless `agent` is 'off', the
 * built-in agent (reference or model) as a client of that port.
 */
export async function startServer(
  given: Partial<Omit<ServerOptions, 'limits'>> & { limits?: Partial<Limits> } = {},
): Promise<TandemServer> {
  const options = resolveServerOptions(given);
  workPool().limitTasksTo(options.limits.workTaskMs);
  // The first import or read need not wait for a thread to load its modules (seconds).
  workPool().keepStarted(1);
  const log = (error: unknown) => console.error('[tandem]', error);
  const keys = openKeyRing(options.dataDir);
  const store = await openStore(options);
  const verify: TokenVerifier = (token) => verifyToken(keys, token, (jti) => store.revocations.isRevoked(jti));
  const scopes = new RunScopes(store.runs);
  const writers = new TextWriters();
  const owners = new ClientOwners(store.authorship);
  const agents = new LateBound<AgentService>('The agent service');

  const notesGuard = new NotesGuard({ docCreatedAt: async (docId) => (await store.getDoc(docId))?.createdAt ?? null });
  const auth = new Auth({ verifyToken: verify, store });
  const freshSync = new FreshSync();
  // One persistence for both backends: it appends inline where the log can (SQLite, group
  // commit), else before it applies a client's update (PostgreSQL; DUR1, SCALE2). Hocuspocus
  // orders the hooks by each extension's `priority` (server/sync/extension-priorities.ts), not by
  // this list.
  const persistence = new Persistence({
    log: store.updates,
    onError: log,
    onUnjudged: (document) => notesGuard.forget(document),
    fresh: freshSync,
    writeBacks: notesGuard,
  });
  const versionsLater = new LateBound<VersionService>('The version service');
  const autoVersions = new AutoVersions({ recordIfChanged: (...args) => versionsLater.get().recordIfChanged(...args) }, options.versionEveryMs, log);
  const hocuspocus = new SafeUnloadHocuspocus({
    quiet: true,
    maxPendingDocuments: options.limits.pendingDocumentsPerSocket,
    timeout: options.limits.idleSocketMs,
    extensions: [
      ...sharedDocuments(options.redisUrl),
      auth,
      new SocketLimits({ auth }),
      new AuditConnections({ audit: store.audit, onError: log }),
      new ShapeGuard(),
      new AuthorshipGuard(owners),
      persistence,
      notesGuard,
      new PresenceGuard(),
      new NotesStrays(),
      new DocMetadata(store),
      new NestedIds(),
      new SearchIndexing(store, log),
      new AnnotationIndex(store.annotationDocs, log),
      new RunMirrorLoad(store.runs),
      new RunGc(scopes),
      writers,
      autoVersions,
      new AgentStateless(agents, log),
      freshSync,
    ],
  });
  const runs = createRunServices({ store, hocuspocus, scopes, writers, owners, leaseMs: options.leaseMs, now: options.leaseClock, onError: log });
  agents.fill(runs.agents);
  const versions = new VersionService({ store, hocuspocus, owners });
  versionsLater.fill(versions);
  // Every committed change of a run is mirrored (RUN4) and wakes the agents' long polls (QUEUE1).
  const mirror = new RunMirror(hocuspocus, store.runs);
  store.runs.onRunChanged((runId, docId) => mirror.refresh(docId, runId));
  store.runs.onRunChanged(() => runs.notifier.notify());
  // Asides live while their run is claimed (ASIDE8).
  const asides = new AsideService({ store, mirror: new AsideMirror(hocuspocus, log), now: options.leaseClock, timeoutMs: options.asideTimeoutMs, onError: log });
  // A failure to forget the asides of an ended run is not the run write's: it is logged.
  store.runs.onRunChanged((runId) => asides.runChanged(runId).catch(log));
  // SCALE3: a run another instance changed wakes this instance's long polls too, and ends the
  // asides waiting here for it once it has left `claimed`.
  store.onRemoteRunChanged((docId) => {
    runs.notifier.notify();
    void asides.docRunsChanged(docId).catch(log);
  });

  const router = new Router<RouteHandler>();
  addDocRoutes(router, { store, hocuspocus, roster: runs.roster });
  addCatalogueRoutes(router, { store, hocuspocus });
  addExportRoutes(router, { store, hocuspocus, owners });
  addAuthorshipRoutes(router, { store, hocuspocus });
  addAssetRoutes(router, { store });
  addAnnotationRoutes(router, { store, hocuspocus });
  addRunRoutes(router, { store, hocuspocus, runs, versions });
  addVersionRoutes(router, { store, versions });
  addAgentRoutes(router, runs.agents);
  addAsideRoutes(router, asides);
  addAuditRoutes(router, store);
  addSessionRoutes(router);
  const openRoutes = new Router<OpenRouteHandler>();
  addInviteRoutes(router, openRoutes, { store, sign: (claims) => signToken(keys, claims), joinRate: options.limits.inviteJoins, publicUrl: options.publicUrl });

  const httpServer = createServer(
    createRequestHandler({
      api: createApiHandler({ router, openRoutes, verifyToken: verify, limits: new ApiLimits(options.limits), onError: log, settled: () => persistence.settled() }),
      static: createStaticHandler(options.distDir),
      onError: log,
    }),
  );
  const collab = attachCollabSocket(httpServer, { hocuspocus, counts: new SocketCounts(options.limits), freshSync, oldestProtocol: options.oldestProtocol });

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
  const sign = (claims: ClaimsInput) => signToken(keys, claims);
  const sweeper = startTokenSweeper({ hocuspocus, revocations: store.revocations, onError: log });
  const upkeep = startCatalogueUpkeep({ store, onError: log });
  const iat = Math.floor(Date.now() / 1000);
  const ownerToken = await sign({ sub: 'owner', name: 'Owner', role: 'editor', iat, exp: iat + ownerLinkSeconds });
  let closing: Promise<void> | undefined;
  const agent =
    options.agent === 'off'
      ? null
      : await startBuiltInAgent({ url: localUrl(options.host, port), sign, options });

  return {
    url: `http://${urlHost(options.host)}:${port}`,
    port,
    dataDir: options.dataDir,
    ownerToken,
    signToken: sign,
    extensions: hocuspocus.configuration.extensions.flatMap(({ extensionName, priority }) =>
      extensionName === undefined ? [] : [{ name: extensionName, priority }],
    ),
    close() {
      closing ??= (async () => {
        sweeper.stop();
        autoVersions.stop();
        await upkeep.stop();
        await agent?.stop();
        asides.close();
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
