import * as Y from 'yjs';
import WebSocket from 'ws';
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import { WebsocketProvider } from 'y-websocket';

/** A standard Yjs client: the `y-websocket` provider on Node's `ws`, at the server's `/yjs`. */
export interface YjsPeer {
  ydoc: Y.Doc;
  provider: WebsocketProvider;
  /** Resolves on the first sync. */
  synced: Promise<void>;
  /** Resolves with the code and reason of the first close of the socket. */
  closed: Promise<{ code: number; reason: string }>;
  destroy(): void;
}

/** `ws://HOST:PORT/yjs` of a server whose `wsUrl` is `ws://HOST:PORT/collab`. */
export function yjsUrl(collabUrl: string): string {
  return collabUrl.replace(/\/collab$/, '/yjs');
}

/**
 * Connects a y-websocket provider to document `name` (`<id>`, `<id>/notes`) with `token` as
 * `?token=`. It does not reconnect after a close (a test reads the first close), and no
 * BroadcastChannel joins it to other providers of this process: everything goes by the server.
 */
export function connectYjsPeer(options: { wsUrl: string; name: string; token: string; ydoc?: Y.Doc }): YjsPeer {
  const ydoc = options.ydoc ?? new Y.Doc();
  let onClosed: (event: { code: number; reason: string }) => void = () => {};
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (onClosed = resolve));
  const provider = new WebsocketProvider(yjsUrl(options.wsUrl), options.name, ydoc, {
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    params: { token: options.token },
    disableBc: true,
  });
  provider.on('connection-close', (event) => {
    provider.shouldConnect = false;
    if (event) onClosed({ code: event.code, reason: event.reason });
  });
  const synced = new Promise<void>((resolve, reject) => {
    provider.once('sync', () => resolve());
    void closed.then(({ code, reason }) => reject(new Error(`Closed before sync: ${code} ${reason}`)));
  });
  synced.catch(() => {});
  return {
    ydoc,
    provider,
    synced,
    closed,
    destroy() {
      provider.destroy();
    },
  };
}

/**
 * A barrier like helpers/peer.ts `roundTrip`: sends a sync step 1 on the peer's socket and
 * resolves when the server's step 2 answer arrives. The server handles one connection's frames
 * in order, so by then it has applied, refused or dropped everything the peer sent before, and
 * the peer holds everything the server held when it answered.
 */
export function yjsRoundTrip(peer: YjsPeer): Promise<void> {
  const { provider } = peer;
  return new Promise((resolve, reject) => {
    const onSync = (synced: boolean) => {
      if (!synced) return;
      provider.off('sync', onSync);
      resolve();
    };
    provider.synced = false;
    provider.on('sync', onSync);
    void peer.closed.then(({ code, reason }) => reject(new Error(`Closed instead of answering: ${code} ${reason}`)));
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, 0);
    syncProtocol.writeSyncStep1(encoder, peer.ydoc);
    provider.ws!.send(encoding.toUint8Array(encoder));
  });
}
