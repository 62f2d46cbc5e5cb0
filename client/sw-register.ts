let asked = false;

/**
 * Registers the service worker that keeps the app shell for offline reloads (production builds
 * only: the dev server has no `/sw.js`). Once a worker controls the page, `<html>` carries
 * `data-offline-ready`, which tests wait for before taking the server away. Called once the page
 * has what it came for — a document's view when its text is there, any other page at once — so
 * that the worker's download of the whole app shell does not compete with a first visit's own
 * requests; only the first call does anything.
 */
export function registerServiceWorker(): void {
  if (asked || !import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  asked = true;
  const mark = () => {
    if (navigator.serviceWorker.controller) document.documentElement.dataset.offlineReady = 'true';
  };
  navigator.serviceWorker.addEventListener('controllerchange', mark);
  mark();
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error: unknown) => {
    console.warn('Tandem: the offline cache is unavailable.', error);
  });
}
