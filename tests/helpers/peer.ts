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

export interface PeerOptions {
  wsUrl: string;
  name: string;
  token: string;
  /** A document to sync; a new empty one by default. */
  ydoc?: Y.Doc;
  /** Presence as a browser tab has it: on by default. */
  awareness?: boolean;
  /** How long the connection may stay silent before the provider reconnects; the provider's own default unless given. */
  messageReconnectTimeout?: number;
}

/** A Hocuspocus client on its own WebSocket, as a browser tab would open one. */
export function connectPeer(options: PeerOptions): Peer {
  const ydoc = options.ydoc ?? new Y.Doc();
  const websocketProvider = new HocuspocusProviderWebsocket({
    url: options.wsUrl,
    WebSocketPolyfill: WebSocket,
    ...(options.messageReconnectTimeout === undefined ? {} : { messageReconnectTimeout: options.messageReconnectTimeout }),
  });
  let onFailed: (reason: string) => void = () => {};
  const authenticationFailed = new Promise<string>((resolve) => (onFailed = resolve));
  const provider = new HocuspocusProvider({
    websocketProvider,
    name: options.name,
    document: ydoc,
    token: options.token,
    ...(options.awareness === false ? { awareness: null } : {}),
    onAuthenticationFailed: ({ reason }) => onFailed(reason),
  });
  const synced = new Promise<void>((resolve, reject) => {
    provider.on('synced', () => resolve());
    void authenticationFailed.then((reason) => reject(new Error(`Authentication failed: ${reason}`)));
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

/**
 * A barrier: resolves once the server has answered a sync step 1 sent now on `peer`'s
 * connection, and `peer`'s replica then holds everything the server's document held when it
 * answered. Frames of one WebSocket reach the socket gate and Hocuspocus in order, and
 * Hocuspocus handles one connection's messages one at a time (Connection's message queue
 * awaits each), so by then the server has applied, refused or dropped everything `peer` sent
 * before. Works on read-only connections too: the gate drops their updates but answers step 1.
 * Rejects if the server closes the connection first.
 */
export function roundTrip(peer: Peer): Promise<void> {
  const { provider } = peer;
  return new Promise((resolve, reject) => {
    const done = () => {
      provider.off('synced', onSynced);
      provider.off('close', onClose);
    };
    const onSynced = () => {
      done();
      resolve();
    };
    const onClose = ({ event }: { event: { reason: string } }) => {
      done();
      reject(new Error(`The server closed the connection instead of answering: ${event.reason}`));
    };
    provider.isSynced = false;
    provider.on('synced', onSynced);
    provider.on('close', onClose);
    provider.forceSync();
  });
}

/**
 * Resolves once `observer` holds every change that anyone's connection sent before `senders`'
 * round trips: first each sender's round trip (the server has handled what it sent), then the
 * observer's, which the server answers after that with its whole state.
 */
export async function afterHandled(senders: Peer[], observer: Peer): Promise<void> {
  await Promise.all(senders.map(roundTrip));
  await roundTrip(observer);
}
