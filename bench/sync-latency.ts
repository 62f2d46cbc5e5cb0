/**
 * 1. Sync latency and fan-out. One document; one peer types one character every 100 ms; N other
 * peers receive. Latency is the time from the typist's edit to its arrival at a receiver, over
 * every (edit, receiver) pair. Tandem's server against a bare @hocuspocus/server, each alone in
 * a child process; every peer lives in this process and shares its clock. Before the timed edits
 * the typist types untimed at the same pace for a while (`warmUpSeconds`): the seconds after N
 * peers connect carry the garbage collections of the connections, in the server and in this
 * process (bench/README.md "Sync"), which are not the cost of an edit.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as Y from 'yjs';
import { buildInitialState } from '../server/docs/create-doc.ts';
import { paragraphsMarkdown, paragraphText } from './lib/docs.ts';
import { acked, connectPeer, connectPeers, destroyAll, sleep, waitFor, type BenchPeer } from './lib/peers.ts';
import { createTandemDoc, withServer, type ServerHandle } from './lib/servers.ts';
import { summarize, type Summary } from './lib/stats.ts';
import { rowsFor, type BenchContext, type Benchmark } from './lib/types.ts';

const receiverCounts = [1, 10, 50, 200];
const editsPerSecond = 10;

interface FanOut extends Summary {
  /** Server CPU time over the typing window, per edit. */
  cpuPerEdit: number;
  lost: number;
  /** The longest event-loop stall over the typing window: of the server, of this process. */
  serverStall: number;
  peersStall: number;
}

export const syncLatency: Benchmark = {
  name: 'sync',
  async run(ctx) {
    const seconds = ctx.quick ? 1.5 : 10;
    const warmUpSeconds = ctx.quick ? 1 : 6;
    const results = { tandem: new Map<number, FanOut>(), bare: new Map<number, FanOut>() };
    for (const kind of ['tandem', 'bare'] as const) {
      const dataDir = kind === 'tandem' ? ctx.tempDir('sync') : undefined;
      await withServer({ kind, dataDir }, async (server) => {
        for (const receivers of receiverCounts) {
          ctx.log(`sync: ${kind}, ${receivers} receivers, ${seconds} s of typing`);
          results[kind].set(receivers, await measureFanOut(ctx, server, receivers, seconds * editsPerSecond, warmUpSeconds * editsPerSecond));
        }
      });
    }

    const { rows, add } = rowsFor('sync');
    const notes: string[] = [];
    for (const receivers of receiverCounts) {
      const tandem = results.tandem.get(receivers)!;
      const bare = results.bare.get(receivers)!;
      const label = `${receivers} receiver${receivers === 1 ? '' : 's'}, ${tandem.n / receivers} edits`;
      const pair = { case: label, baselineName: 'bare Hocuspocus', better: 'lower' as const };
      add({ ...pair, metric: 'latency p50', unit: 'ms', tandem: tandem.p50, baseline: bare.p50 });
      add({ ...pair, metric: 'latency p99', unit: 'ms', tandem: tandem.p99, baseline: bare.p99 });
      add({ ...pair, metric: 'latency max', unit: 'ms', tandem: tandem.max, baseline: bare.max });
      add({ ...pair, metric: 'server CPU per edit', unit: 'ms', tandem: tandem.cpuPerEdit, baseline: bare.cpuPerEdit });
      for (const [kind, result] of [['tandem', tandem], ['bare', bare]] as const) {
        if (result.lost) notes.push(`sync: ${kind} with ${receivers} receivers: ${result.lost} deliveries never arrived`);
        if (result.max > 100) {
          notes.push(
            `sync: ${kind} with ${receivers} receivers: max ${result.max.toFixed(0)} ms; longest event-loop stall ` +
              `${result.serverStall.toFixed(0)} ms in the server, ${result.peersStall.toFixed(0)} ms among the peers`,
          );
        }
      }
    }
    return { rows, notes };
  },
};

async function measureFanOut(ctx: BenchContext, server: ServerHandle, receivers: number, edits: number, warmUpEdits: number): Promise<FanOut> {
  const markdown = paragraphsMarkdown(20, 200);
  const tandem = server.kind === 'tandem';
  const name = tandem ? await createTandemDoc(server, 'Fan-out', markdown) : `fan-out-${receivers}`;
  // A bare server starts empty: the typist brings the same content as Tandem holds.
  const typistDoc = new Y.Doc();
  if (!tandem) Y.applyUpdate(typistDoc, buildInitialState({ kind: 'text', title: 'Fan-out', markdown }));

  const peers: BenchPeer[] = [];
  try {
    const typist = connectPeer({ wsUrl: server.wsUrl, name, token: server.token, ydoc: typistDoc });
    peers.push(typist);
    await typist.synced;
    await acked(typist.provider);
    peers.push(...(await connectPeers(receivers, () => connectPeer({ wsUrl: server.wsUrl, name, token: server.token }))));

    const typed = paragraphText(typistDoc);
    const typeAtPace = async (count: number, onEdit?: (edit: number) => void) => {
      const start = performance.now();
      for (let edit = 0; edit < count; edit++) {
        const due = start + (edit * 1000) / editsPerSecond;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        onEdit?.(edit);
        typed.insert(typed.length, String.fromCharCode(97 + (edit % 26)));
      }
    };
    await typeAtPace(warmUpEdits);
    const typedLength = typed.length;
    await waitFor(() => peers.slice(1).every((peer) => paragraphText(peer.ydoc).length === typedLength), 15_000, 'every receiver to get the warm-up');
    const sentAt = new Float64Array(edits);
    const latencies: number[] = [];
    let complete = 0;
    for (const peer of peers.slice(1)) {
      const ytext = paragraphText(peer.ydoc);
      const base = ytext.length;
      let seen = 0;
      let done = false;
      // Each edit adds one character at the end, and one socket delivers in order.
      peer.ydoc.on('update', () => {
        const now = performance.now();
        const arrived = ytext.length - base;
        while (seen < arrived && seen < edits) latencies.push(now - sentAt[seen++]);
        if (seen === edits && !done) {
          done = true;
          complete++;
        }
      });
    }
    await sleep(500);

    const cpuBefore = await server.cpuMs();
    await server.stallMs();
    const peersLoop = monitorEventLoopDelay({ resolution: 5 });
    peersLoop.enable();
    await typeAtPace(edits, (edit) => (sentAt[edit] = performance.now()));
    await waitFor(() => complete === receivers, 15_000, 'every receiver to get every edit').catch((error) => ctx.log(String(error)));
    peersLoop.disable();
    const cpuPerEdit = ((await server.cpuMs()) - cpuBefore) / edits;
    return {
      ...summarize(latencies),
      cpuPerEdit,
      lost: receivers * edits - latencies.length,
      serverStall: await server.stallMs(),
      peersStall: peersLoop.max / 1e6,
    };
  } finally {
    destroyAll(peers);
    await sleep(200);
  }
}
