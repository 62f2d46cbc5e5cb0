/**
 * The service worker: keeps the app shell so that the app loads with the server down.
 *
 * - Every file of the build is precached (Workbox; the list is injected at build time by
 *   vite-plugin-pwa, see vite.config.ts) and served cache first: asset names carry a content
 *   hash, and a new build changes this file's bytes, so the browser installs a fresh worker.
 * - Navigations (any page of the app, `/` and `/d/<id>` alike): network first, so a new build
 *   takes effect on the next load; the precached `index.html` when the network fails or is slow.
 *   A new build's `sw.js` differs, so it installs, takes over at once (skipWaiting, clients.claim)
 *   and drops the old precache.
 * - IMG3: the images of documents (`GET /api/docs/ID/assets/HASH`, which the editor loads with
 *   its token) are kept in the cache `tandem-assets` once loaded and served cache first: an
 *   asset's address names its bytes (their SHA-256), so a kept copy is never stale, and the
 *   images of a document opened once show offline. Only 200 answers are kept: a refusal is
 *   asked again next time.
 * - The rest of `/api/`, `/collab` and `/healthz` are never routed: they go straight to the network.
 */
import { cleanupOutdatedCaches, matchPrecache, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { CacheFirst, NetworkOnly } from 'workbox-strategies';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<string | { url: string; revision: string | null }> };

const shell = 'index.html';
const navigationTimeoutSeconds = 4;

const network = new NetworkOnly({ networkTimeoutSeconds: navigationTimeoutSeconds });
registerRoute(
  new NavigationRoute(
    async (options) => {
      try {
        return await network.handle(options);
      } catch {
        return (await matchPrecache(shell)) ?? offlinePage();
      }
    },
    { denylist: [/^\/api\//, /^\/collab(\/|$)/, /^\/healthz$/] },
  ),
);
const assetPath = /^\/api\/docs\/[A-Za-z0-9_-]{1,64}\/assets\/[0-9a-f]{64}$/;
registerRoute(
  ({ url, request }) => url.origin === self.location.origin && request.method === 'GET' && assetPath.test(url.pathname),
  new CacheFirst({
    cacheName: 'tandem-assets',
    plugins: [{ cacheWillUpdate: async ({ response }) => (response.status === 200 ? response : null) }],
  }),
);
// After the navigation route: Workbox takes the first route that matches, and the precache's
// route matches `/` (as `index.html`), which would serve the old shell after a release.
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

self.addEventListener('install', () => void self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

function offlinePage(): Response {
  return new Response('<!doctype html><title>Tandem</title><p>Tandem is offline and this page is not cached yet.</p>', {
    status: 503,
    headers: { 'Content-Type': 'text/html; charset=utf-8' },
  });
}
