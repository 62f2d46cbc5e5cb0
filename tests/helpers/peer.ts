import * as Y from 'yjs';
import WebSocket from 'ws';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';

export interface Peer {
  ydoc: Y.Doc;
  provider: HocuspocusProvider;
  /** Resolves on the first sync; rejects with the server's reason if authentication fails. */
  synced: Promise<void>;
  /** Resolves with the server's reason when it refuses the connection. */
  authenticationFailed: Promise<string>;
  destroy(): void;
}

/** A Hocuspocus client on its own WebSocket, as a browser tab would open one. */
export function connectPeer(options: { wsUrl: string; name: string; token: string; ydoc?: Y.Doc }): Peer {
  const ydoc = options.ydoc ?? new Y.Doc();
  const websocketProvider = new HocuspocusProviderWebsocket({
    url: options.wsUrl,
    WebSocketPolyfill: WebSocket,
  });
  let onFailed: (reason: string) => void = () => {};
  const authenticationFailed = new Promise<string>((resolve) => (onFailed = resolve));
  const provider = new HocuspocusProvider({
    websocketProvider,
    name: options.name,
    document: ydoc,
    token: options.token,
    onAuthenticationFailed: ({ reason }) => onFailed(reason),
  });
  const synced = new Promise<void>((resolve, reject) => {
    provider.on('synced', () => resolve());
    authenticationFailed.then((reason) => reject(new Error(`Authentication failed: ${reason}`)));
  });
  synced.catch(() => {});
  provider.attach();
  return {
    ydoc,
    provider,
    synced,
    authenticationFailed,
    destroy() {
      provider.destroy();
      websocketProvider.destroy();
    },
  };
}

/** Resolves once `predicate` holds, polling; rejects after `timeoutMs`. */
export async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs = 5000, intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
