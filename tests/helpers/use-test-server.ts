import type * as Y from 'yjs';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { connectPeer, type Peer } from './peer.ts';
import { startTestServer, type TestServer } from './server.ts';

export interface FileServer extends TestServer {
  /** Destroys `peer` after the current test; returns it. */
  track<T extends { destroy(): void }>(peer: T): T;
  /** A peer on document `docId` (as the owner unless `token` says otherwise), destroyed after the current test. */
  connect(docId: string, token?: string, ydoc?: Y.Doc): Peer;
}

/**
 * One real server for the tests of a file: started before them, disposed after them; peers
 * passed to `track` are destroyed after each test. Members may be used inside tests and hooks
 * only (the server starts in `beforeAll`). With `lifetime: 'test'`, each test gets a server of
 * its own instead, started before it and disposed after it (after its peers).
 */
export function useTestServer(options: Parameters<typeof startTestServer>[0] = {}, lifetime: 'file' | 'test' = 'file'): FileServer {
  let started: TestServer | undefined;
  const tracked: { destroy(): void }[] = [];
  const current = (): TestServer => {
    if (!started) throw new Error('The test server starts in a before hook: use it inside tests and hooks.');
    return started;
  };
  const destroyPeers = () => {
    for (const peer of tracked.splice(0)) peer.destroy();
  };
  const start = async () => {
    started = await startTestServer(options);
  };
  const dispose = async () => {
    await started?.dispose();
    started = undefined;
  };
  if (lifetime === 'test') {
    beforeEach(start);
    afterEach(async () => {
      destroyPeers();
      await dispose();
    });
  } else {
    beforeAll(start);
    afterEach(destroyPeers);
    afterAll(dispose);
  }
  const track = <T extends { destroy(): void }>(peer: T): T => {
    tracked.push(peer);
    return peer;
  };
  return {
    get url() {
      return current().url;
    },
    get wsUrl() {
      return current().wsUrl;
    },
    get port() {
      return current().port;
    },
    get dataDir() {
      return current().dataDir;
    },
    get databaseUrl() {
      return current().databaseUrl;
    },
    get ownerToken() {
      return current().ownerToken;
    },
    token: (role, extra) => current().token(role, extra),
    api: (path, request) => current().api(path, request),
    exec: (sql, params) => current().exec(sql, params),
    revoke: (jti, doc) => current().revoke(jti, doc),
    openStore: () => current().openStore(),
    createDoc: (title, markdown) => current().createDoc(title, markdown),
    stop: () => current().stop(),
    restart: (changes) => current().restart(changes),
    dispose: () => current().dispose(),
    track,
    connect: (docId, token = current().ownerToken, ydoc) => track(connectPeer({ wsUrl: current().wsUrl, name: docId, token, ydoc })),
  };
}
