import * as Y from 'yjs';
import { applyPatches, causalVersions, type ConcurrentTrace } from './traces.ts';
import type { BenchPeer } from './peers.ts';

/** The first author's client id; author `a` gets `firstAuthorClientId + a`. */
const firstAuthorClientId = 1000;

export interface Relay {
  /**
   * Called with each update an author makes, in trace order, and what that author had seen:
   * the clock of every other author's Y.Doc in its own (the update refers to nothing beyond).
   */
  send(agent: number, update: Uint8Array, seen: Map<number, number>): void;
  /** Awaited every 50 edits, to let the network keep up. */
  pace(): Promise<void>;
}

/**
 * Replays a concurrent trace into one Y.Doc per author, each brought to exactly the version its
 * next edit was made on (its `parents`), starting from `genesis`. Each update an author makes is
 * handed to `relay`. Checks that all the authors' updates merged give `endContent`. `findText`
 * finds the Y.XmlText the trace is typed into.
 */
export async function replayConcurrent(
  trace: ConcurrentTrace,
  genesis: Uint8Array,
  findText: (ydoc: Y.Doc) => Y.XmlText | null,
  relay: Relay | null,
) {
  const agents = trace.numAgents;
  const { seen } = causalVersions(trace);
  const authors = Array.from({ length: agents }, (_, agent) => {
    const ydoc = new Y.Doc();
    // Yjs orders concurrent inserts at one place (next to a deleted character counts) by client
    // id, lower first; the trace's endContent puts agent 0's text before agent 1's there.
    ydoc.clientID = firstAuthorClientId + agent;
    Y.applyUpdate(ydoc, genesis);
    return { ydoc, ytext: findText(ydoc)!, applied: new Int32Array(agents) };
  });
  const log: Uint8Array[][] = Array.from({ length: agents }, () => []);
  const inOrder: Uint8Array[] = [];
  const start = performance.now();
  for (const [index, txn] of trace.txns.entries()) {
    const author = authors[txn.agent];
    for (let other = 0; other < agents; other++) {
      const target = seen[index * agents + other];
      if (other === txn.agent) {
        if (author.applied[other] !== target) throw new Error(`edit ${index} does not follow its author's previous edit`);
        continue;
      }
      while (author.applied[other] < target) Y.applyUpdate(author.ydoc, log[other][author.applied[other]++]);
    }
    let made: Uint8Array | null = null;
    const capture = (update: Uint8Array) => (made = update);
    author.ydoc.on('update', capture);
    applyPatches(author.ydoc, author.ytext, txn.patches);
    author.ydoc.off('update', capture);
    if (!made) throw new Error(`edit ${index} changed nothing`);
    log[txn.agent].push(made);
    inOrder.push(made);
    author.applied[txn.agent]++;
    if (relay) {
      const clocks = new Map<number, number>();
      for (const [other, { ydoc }] of authors.entries()) {
        if (other !== txn.agent) clocks.set(ydoc.clientID, Y.getState(author.ydoc.store, ydoc.clientID));
      }
      relay.send(txn.agent, made, clocks);
      if (index % 50 === 49) await relay.pace();
    }
  }
  const merged = new Y.Doc();
  Y.applyUpdate(merged, genesis);
  for (const update of inOrder) Y.applyUpdate(merged, update);
  const result = { seconds: (performance.now() - start) / 1000, converged: findText(merged)?.toString() === trace.endContent };
  for (const author of authors) author.ydoc.destroy();
  merged.destroy();
  return result;
}

/**
 * A peer that sends an author's updates, each only once the peer has received (from the
 * server) everything that author had seen when making it — as a person can only build on
 * edits that reached them. Handing Yjs an update whose dependencies are missing would park it
 * as pending and the provider would never send it.
 */
export class AuthorOutbox {
  private readonly queue: { update: Uint8Array; seen: Map<number, number> }[] = [];

  constructor(private readonly peer: BenchPeer) {
    peer.ydoc.on('update', this.pump);
  }

  get length(): number {
    return this.queue.length;
  }

  push(update: Uint8Array, seen: Map<number, number>): void {
    this.queue.push({ update, seen });
    this.pump();
  }

  close(): void {
    this.peer.ydoc.off('update', this.pump);
  }

  private sending = false;

  private readonly pump = () => {
    if (this.sending) return;
    this.sending = true;
    try {
      while (this.queue.length > 0 && this.ready(this.queue[0].seen)) {
        Y.applyUpdate(this.peer.ydoc, this.queue.shift()!.update, this);
      }
    } finally {
      this.sending = false;
    }
  };

  private ready(seen: Map<number, number>): boolean {
    for (const [client, clock] of seen) if (Y.getState(this.peer.ydoc.store, client) < clock) return false;
    return true;
  }
}
