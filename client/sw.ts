/**
 * The service worker: keeps the app shell so that the app loads with the server down.
 *
 * - Navigations (any page of the app, e.g. `/d/<id>`): network first, so a new build takes
 *   effect at once; the cached `index.html` when the network fails or is slow.
 * - Built assets (`/assets/…`, content-hashed): cache first; they never change under one name.
 * - `/api/`, `/collab` and `/healthz` are never touched: they go straight to the network.
 *
 * `__TANDEM_PRECACHE__` is put in front of this file at build time: the list of every emitted
 * file (see vite.config.ts). A new build therefore changes this file's bytes, which makes the
 * browser install it.
 */
export {};

declare const self: ServiceWorkerGlobalScope;
declare const __TANDEM_PRECACHE__: { version: string; files: string[] } | undefined;

const PRECACHE = typeof __TANDEM_PRECACHE__ === 'undefined' ? { version: 'dev', files: [] } : __TANDEM_PRECACHE__;

const cacheName = `tandem-shell-${PRECACHE.version}`;
const shellKey = '/index.html';
const navigationTimeoutMs = 4000;

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(cacheName);
      await cache.addAll(PRECACHE.files.filter((file) => file !== shellKey));
      // The shell is fetched as `/` (the server's answer to any app page), stored under one key.
      const shell = await fetch('/', { cache: 'no-store' });
      if (!shell.ok) throw new Error(`The app shell answered ${shell.status}.`);
      await cache.put(shellKey, shell);
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith('tandem-shell-') && name !== cacheName) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || isLive(url.pathname)) return;
  if (request.mode === 'navigate') event.respondWith(navigation(request));
  else if (url.pathname.startsWith('/assets/')) event.respondWith(asset(request));
  else event.respondWith(other(request));
});

function isLive(pathname: string): boolean {
  return pathname.startsWith('/api/') || pathname === '/collab' || pathname.startsWith('/collab/') || pathname === '/healthz';
}

async function navigation(request: Request): Promise<Response> {
  const cache = await caches.open(cacheName);
  try {
    const response = await withTimeout(fetch(request), navigationTimeoutMs);
    const type = response.headers.get('content-type') ?? '';
    if (response.ok && type.includes('text/html')) await cache.put(shellKey, response.clone());
    return response;
  } catch {
    return (await cache.match(shellKey)) ?? offlinePage();
  }
}

async function asset(request: Request): Promise<Response> {
  const cache = await caches.open(cacheName);
  const cached = await cache.match(request, { ignoreSearch: true });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

async function other(request: Request): Promise<Response> {
  try {
    return await fetch(request);
  } catch (error) {
    const cached = await caches.match(request, { ignoreSearch: true });
    if (cached) return cached;
    throw error;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function offlinePage(): Response {
  return new Response('<!doctype html><title>Tandem</title><p>Tandem is offline and this page is not cached yet.</p>', {
    status: 503,
    headers: { 'Content-Type': 'text/html; charset=utf-8' },
  });
}
