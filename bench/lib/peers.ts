import type { HocuspocusProvider } from '@hocuspocus/provider';
import { connectPeer as connectTestPeer, type Peer, type PeerOptions } from '../../tests/helpers/peer.ts';

/** A peer as the benchmarks use it. */
export type BenchPeer = Pick<Peer, 'ydoc' | 'provider' | 'synced' | 'destroy'>;

/** As the tests' peers take them, but presence is off unless `awareness` says so: only document traffic is measured. */
export type BenchPeerOptions = Omit<PeerOptions, 'messageReconnectTimeout'>;

/**
 * A Hocuspocus client on its own WebSocket, as one browser tab would connect. Its idle
 * watchdog is stretched to ten minutes: a peer without presence receives nothing while it
 * waits, and the provider would otherwise reconnect after 30 s of silence.
 */
export function connectPeer(options: BenchPeerOptions): BenchPeer {
  return connectTestPeer({ ...options, awareness: options.awareness ?? false, messageReconnectTimeout: 600_000 });
}

/** Opens `count` peers, `batch` at a time, each batch synced before the next opens. */
export async function connectPeers(count: number, open: (index: number) => BenchPeer, batch = 25, timeoutMs = 60_000): Promise<BenchPeer[]> {
  const peers: BenchPeer[] = [];
  try {
    for (let start = 0; start < count; start += batch) {
      const opened: BenchPeer[] = [];
      for (let index = start; index < Math.min(count, start + batch); index++) opened.push(open(index));
      peers.push(...opened);
      await withTimeout(Promise.all(opened.map((peer) => peer.synced)), timeoutMs, `peers ${start}… to sync`);
    }
    return peers;
  } catch (error) {
    destroyAll(peers);
    throw error;
  }
}

export function destroyAll(peers: readonly BenchPeer[]): void {
  for (const peer of peers) peer.destroy();
}

/** Resolves once the server has acknowledged every update `provider` has sent. */
export function acked(provider: HocuspocusProvider, timeoutMs = 60_000): Promise<void> {
  return waitFor(() => provider.unsyncedChanges === 0, timeoutMs, 'the server to acknowledge every update', 2);
}

/**
 * Paces a peer that types as fast as it can: call after each edit. Every 50 edits it lets the
 * event loop run and waits while more than 200 updates are unacknowledged: a fast typist on a
 * short round trip. (With thousands in flight, one socket read hands Hocuspocus hundreds of
 * updates, which it merges with `Y.mergeUpdates` before broadcasting, at a cost that grows
 * faster than their number; the figures would then measure that merge.)
 */
export function typingPacer(provider: HocuspocusProvider, every = 50, inFlight = 200): () => Promise<void> {
  let edits = 0;
  return async () => {
    if (++edits % every !== 0) return;
    await tick();
    while (provider.unsyncedChanges > inFlight) await sleep(1);
  };
}

/** Resolves once `predicate` holds, polling every `intervalMs`; rejects after `timeoutMs`. */
export async function waitFor(predicate: () => boolean, timeoutMs: number, what: string, intervalMs = 10): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Lets the event loop run pending I/O (socket writes, incoming messages). */
export const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
