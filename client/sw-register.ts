/**
 * Registers the service worker that keeps the app shell for offline reloads (production builds
 * only: the dev server has no `/sw.js`). Once a worker controls the page, `<html>` carries
 * `data-offline-ready`, which tests wait for before taking the server away.
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const mark = () => {
    if (navigator.serviceWorker.controller) document.documentElement.dataset.offlineReady = 'true';
  };
  navigator.serviceWorker.addEventListener('controllerchange', mark);
  mark();
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error: unknown) => {
    console.warn('Tandem: the offline cache is unavailable.', error);
  });
}
