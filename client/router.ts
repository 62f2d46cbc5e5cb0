import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { isDocId } from '../shared/model/doc-layout.ts';

export type Route = { name: 'list' } | { name: 'doc'; docId: string } | { name: 'join' } | { name: 'not-found' };

export function parseRoute(pathname: string): Route {
  if (pathname === '/' || pathname === '/index.html') return { name: 'list' };
  // INV4: an invite's link, `/join#CODE` (shared/wire/invites.ts).
  if (pathname === '/join') return { name: 'join' };
  const match = /^\/d\/([^/]+)\/?$/.exec(pathname);
  if (match && isDocId(decodeURIComponent(match[1]))) return { name: 'doc', docId: decodeURIComponent(match[1]) };
  return { name: 'not-found' };
}

export function docPath(docId: string): string {
  return '/d/' + encodeURIComponent(docId);
}

const navigateEvent = 'tandem-navigate';

/** Moves to `path` within the app (history API); the router re-renders. */
export function navigate(path: string, { replace = false } = {}): void {
  if (path === location.pathname) return;
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  window.dispatchEvent(new Event(navigateEvent));
}

/**
 * Holds the current route for its host. Same-origin links are followed in place unless the
 * person asked for a new tab or window (modifier keys, middle button, `target`, `download`).
 */
export class RouterController implements ReactiveController {
  route: Route = parseRoute(location.pathname);

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  hostConnected(): void {
    window.addEventListener('popstate', this.sync);
    window.addEventListener(navigateEvent, this.sync);
    document.addEventListener('click', this.onClick);
  }

  hostDisconnected(): void {
    window.removeEventListener('popstate', this.sync);
    window.removeEventListener(navigateEvent, this.sync);
    document.removeEventListener('click', this.onClick);
  }

  private readonly sync = () => {
    this.route = parseRoute(location.pathname);
    this.host.requestUpdate();
  };

  private readonly onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = event.composedPath().find((node): node is HTMLAnchorElement => node instanceof HTMLAnchorElement);
    if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
    const url = new URL(anchor.href, location.href);
    if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
    event.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  };
}
