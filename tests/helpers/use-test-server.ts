import { afterAll, afterEach, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from './server.ts';

export interface FileServer extends TestServer {
  /** Destroys `peer` after the current test; returns it. */
  track<T extends { destroy(): void }>(peer: T): T;
}

/**
 * One real server for the tests of a file: started before them, disposed after them; peers
 * passed to `track` are destroyed after each test. Members may be used inside tests and hooks
 * only (the server starts in `beforeAll`).
 */
export function useTestServer(options: Parameters<typeof startTestServer>[0] = {}): FileServer {
  let started: TestServer | undefined;
  const tracked: { destroy(): void }[] = [];
  const current = (): TestServer => {
    if (!started) throw new Error('The test server starts in beforeAll: use it inside tests and hooks.');
    return started;
  };
  beforeAll(async () => {
    started = await startTestServer(options);
  });
  afterEach(() => {
    for (const peer of tracked.splice(0)) peer.destroy();
  });
  afterAll(async () => {
    await started?.dispose();
  });
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
    get ownerToken() {
      return current().ownerToken;
    },
    token: (role, extra) => current().token(role, extra),
    api: (path, request) => current().api(path, request),
    createDoc: (title, markdown) => current().createDoc(title, markdown),
    stop: () => current().stop(),
    restart: () => current().restart(),
    dispose: () => current().dispose(),
    track(peer) {
      tracked.push(peer);
      return peer;
    },
  };
}
