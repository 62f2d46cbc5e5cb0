import * as Y from 'yjs';
import WebSocket from 'ws';
import * as decoding from 'lib0/decoding';
import { messageYjsSyncStep2 } from 'y-protocols/sync';
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

/** Hocuspocus's sync message types (`MessageType.Sync`, `MessageType.SyncReply`). */
const messageSync = 0;
const messageSyncReply = 4;

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
  // One round trip at a time per provider: each waits for the step 2 answering its own step 1.
  const previous = pendingRoundTrips.get(peer.provider) ?? Promise.resolve();
  const next = previous.catch(() => {}).then(() => oneRoundTrip(peer.provider));
  pendingRoundTrips.set(peer.provider, next);
  return next;
}

const pendingRoundTrips = new WeakMap<HocuspocusProvider, Promise<void>>();

function oneRoundTrip(provider: HocuspocusProvider): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      provider.off('message', onMessage);
      provider.off('close', onClose);
    };
    // The step 2 answering this step 1, not the `synced` flag: a sync status acknowledging an
    // earlier message sets that too, before the server has read what was sent since.
    const onMessage = ({ event }: { event: MessageEvent }) => {
      if (!isSyncStep2(new Uint8Array(event.data as ArrayBuffer))) return;
      done();
      // The provider applies the step 2 right after this event, before the promise's callbacks run.
      resolve();
    };
    const onClose = ({ event }: { event: { reason: string } }) => {
      done();
      reject(new Error(`The server closed the connection instead of answering: ${event.reason}`));
    };
    provider.on('message', onMessage);
    provider.on('close', onClose);
    provider.forceSync();
  });
}

/** Whether a frame the server sent is a sync step 2 (Hocuspocus sync message, y-protocols step 2). */
function isSyncStep2(frame: Uint8Array): boolean {
  const decoder = decoding.createDecoder(frame);
  decoding.readVarString(decoder);
  const type = decoding.readVarUint(decoder);
  return (type === messageSync || type === messageSyncReply) && decoding.readVarUint(decoder) === messageYjsSyncStep2;
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
