/**
 * 3. Persistence. How soon an edit is durable in the store, how many edits per second reach it
 * in a burst, and how long a fresh peer waits for a 100 KB, 1 MB or 10 MB document loaded cold
 * from the store. Tandem's server against bare Hocuspocus with the stock SQLite extension's
 * persistence (`bare-sqlite`); loads also against the floor of reading the blob and decoding it
 * in this process.
 */
import * as Y from 'yjs';
import Database from 'better-sqlite3';
import { buildInitialState } from '../server/docs/create-doc.ts';
import { docParts } from '../shared/doc-layout.ts';
import {
  docOfStateSize,
  paragraphText,
  paragraphsMarkdown,
  seedHocuspocusSqlite,
  seedTandemStore,
  tandemSqlitePath,
} from './lib/docs.ts';
import { acked, connectPeer, sleep, typingPacer, waitFor, type BenchPeer } from './lib/peers.ts';
import { createTandemDoc, launchServer, withServer, type ServerHandle } from './lib/servers.ts';
import { medianTime, percentile, summarize } from './lib/stats.ts';
import { formatBytes } from './lib/table.ts';
import { rowsFor, type BenchContext, type Benchmark } from './lib/types.ts';

type Kind = 'tandem' | 'bare-sqlite';
const kinds: Kind[] = ['tandem', 'bare-sqlite'];
const baselineName = 'bare Hocuspocus + SQLite';
/** Target sizes of the Yjs state of the documents loaded cold (quick mode skips the largest). */
const loadSizes = [100_000, 1_000_000, 10_000_000];

interface Durability {
  latencies: number[];
  burst: number;
  /** Edits per second from the first edit of the burst until the last is durable. */
  durableRate: number;
  /** Edits per second from the first edit until the server acknowledged the last. */
  ingestRate: number;
  /** From the server's acknowledgement of the last edit until it is durable. */
  lastToDurable: number;
}

export const persistence: Benchmark = {
  name: 'persistence',
  async run(ctx) {
    const { rows, add } = rowsFor('persistence');

    // Both servers at once for the single edits, which mostly wait out the debounce; the bursts,
    // which load the CPU, one after the other.
    const probes: DurabilityProbe[] = [];
    const durability = new Map<Kind, Durability>();
    try {
      for (const kind of kinds) probes.push(await openProbe(ctx, kind));
      const samples = ctx.quick ? 2 : 10;
      ctx.log(`persistence: ${samples} single edits until durable, both servers`);
      const latencies = await Promise.all(probes.map((probe) => probe.singleEdits(samples)));
      for (const [index, probe] of probes.entries()) {
        const burst = ctx.quick ? 10_000 : 100_000;
        ctx.log(`persistence: ${probe.kind}, burst of ${burst} edits`);
        durability.set(probe.kind, { latencies: latencies[index], ...(await probe.burst(burst)) });
      }
    } finally {
      for (const probe of probes) await probe.close();
    }
    const tandem = durability.get('tandem')!;
    const bare = durability.get('bare-sqlite')!;
    const single = { case: `single edits ×${tandem.latencies.length}`, baselineName, better: 'lower' as const };
    add({ ...single, metric: 'edit → durable p50', unit: 'ms', tandem: percentile(tandem.latencies, 50), baseline: percentile(bare.latencies, 50) });
    add({ ...single, metric: 'edit → durable max', unit: 'ms', tandem: summarize(tandem.latencies).max, baseline: summarize(bare.latencies).max });
    const burst = { case: `burst of ${tandem.burst.toLocaleString('en-US')} edits`, baselineName };
    add({ ...burst, metric: 'edits acknowledged/s', unit: 'per-s', better: 'higher', tandem: tandem.ingestRate, baseline: bare.ingestRate });
    add({ ...burst, metric: 'edits durable/s', unit: 'per-s', better: 'higher', tandem: tandem.durableRate, baseline: bare.durableRate });
    add({ ...burst, metric: 'last ack → durable', unit: 'ms', better: 'lower', tandem: tandem.lastToDurable, baseline: bare.lastToDurable });

    const rounds = ctx.quick ? 1 : 3;
    const sizes = ctx.quick ? loadSizes.slice(0, -1) : loadSizes;
    ctx.log(`persistence: building documents of ${sizes.map(formatBytes).join(', ')}`);
    const docs = sizes.map((size) => docOfStateSize(size));
    const warmUp = docOfStateSize(20_000);
    const loads = new Map<Kind, number[][]>();
    let floor: number[] = [];
    for (const kind of kinds) {
      const dataDir = ctx.tempDir(`load-${kind}`);
      const [warmUpName, ...names] = await seed(kind, dataDir, [warmUp.state, ...docs.map((doc) => doc.state)]);
      if (kind === 'tandem') floor = await decodeFloor(tandemSqlitePath(dataDir), names, ctx.quick ? 3 : 5);
      const times: number[][] = docs.map(() => []);
      for (let round = 0; round < rounds; round++) {
        ctx.log(`persistence: cold loads, ${kind}, round ${round + 1} of ${rounds}`);
        // A new server process each round, so that every load comes from the store.
        await withServer({ kind, dataDir }, async (server) => {
          // "Cold" is about the document, not the process: one small load warms the code up first.
          await loadTime(server, warmUpName, warmUp.paragraphs);
          for (const [index, doc] of docs.entries()) times[index].push(await loadTime(server, names[index], doc.paragraphs));
        });
      }
      loads.set(kind, times);
    }

    for (const [index, doc] of docs.entries()) {
      const tandemLoad = percentile(loads.get('tandem')![index], 50);
      const bareLoad = percentile(loads.get('bare-sqlite')![index], 50);
      const label = `${formatBytes(doc.state.byteLength)} doc, cold`;
      add({ case: label, metric: 'fresh peer load', unit: 'ms', better: 'lower', tandem: tandemLoad, baseline: bareLoad, baselineName });
      add({ case: label, metric: 'fresh peer load', unit: 'ms', better: 'lower', tandem: tandemLoad, baseline: floor[index], baselineName: 'SQLite read + Y.applyUpdate' });
    }
    return {
      rows,
      notes: [
        'persistence: Hocuspocus stores a changed document 2 s after the last change (at most 10 s while changes keep coming), in Tandem as in the baseline; "edit → durable" is mostly that debounce.',
      ],
    };
  },
};

interface DurabilityProbe {
  kind: Kind;
  /** Latencies of `samples` single edits, from the edit to its being durable. */
  singleEdits(samples: number): Promise<number[]>;
  burst(edits: number): Promise<Omit<Durability, 'latencies'>>;
  close(): Promise<void>;
}

/** A server of `kind` with one document, one peer on it, and a watch on its store. */
async function openProbe(ctx: BenchContext, kind: Kind): Promise<DurabilityProbe> {
  const dataDir = ctx.tempDir(`persist-${kind}`);
  const server = await launchServer({ kind, dataDir });
  const markdown = paragraphsMarkdown(20, 200);
  const tandem = kind === 'tandem';
  const ydoc = new Y.Doc();
  let peer: BenchPeer | null = null;
  let stored: { clock(): number; close(): void } | null = null;
  const close = async () => {
    peer?.destroy();
    stored?.close();
    await server.stop();
  };
  try {
    const name = tandem ? await createTandemDoc(server, 'Durable', markdown) : 'durable';
    if (!tandem) Y.applyUpdate(ydoc, buildInitialState({ kind: 'text', title: 'Durable', markdown }));
    peer = connectPeer({ wsUrl: server.wsUrl, name, token: server.token, ydoc });
    stored = storeWatch(server, dataDir, name, ydoc.clientID);
    await peer.synced;
    await acked(peer.provider);
  } catch (error) {
    await close();
    throw error;
  }
  const typist = peer;
  const storedClock = stored.clock;
  const typed = paragraphText(ydoc);
  const ownClock = () => Y.getState(ydoc.store, ydoc.clientID);

  return {
    kind,
    async singleEdits(samples) {
      await waitFor(() => storedClock() >= ownClock(), 20_000, 'the initial state to be stored');
      const latencies: number[] = [];
      for (let sample = 0; sample < samples; sample++) {
        await sleep(100);
        const start = performance.now();
        typed.insert(typed.length, 'x');
        const expected = ownClock();
        await waitFor(() => storedClock() >= expected, 20_000, 'an edit to be durable', 2);
        latencies.push(performance.now() - start);
      }
      return latencies;
    },
    async burst(edits) {
      const pace = typingPacer(typist.provider);
      const start = performance.now();
      for (let edit = 0; edit < edits; edit++) {
        typed.insert(typed.length, String.fromCharCode(97 + (edit % 26)));
        await pace();
      }
      const expected = ownClock();
      await acked(typist.provider);
      const ackedAt = performance.now();
      await waitFor(() => storedClock() >= expected, 30_000, 'the burst to be durable', 2);
      const durableAt = performance.now();
      return {
        burst: edits,
        durableRate: edits / ((durableAt - start) / 1000),
        ingestRate: edits / ((ackedAt - start) / 1000),
        lastToDurable: durableAt - ackedAt,
      };
    },
    close,
  };
}

/**
 * How much of one peer's typing the stored state of `name` holds (that peer's clock there; -1
 * before the first write). Tandem's store is in WAL mode, so reading it from here blocks no
 * write; a `bare-sqlite` server reports its writes instead (see server-process.ts).
 */
function storeWatch(server: ServerHandle, dataDir: string, name: string, clientID: number): { clock(): number; close(): void } {
  if (server.kind === 'tandem') {
    const reader = new Database(tandemSqlitePath(dataDir), { readonly: true, timeout: 5000 });
    const select = reader.prepare<[string], { data: Buffer }>('SELECT data FROM documents WHERE name = ?');
    return {
      clock() {
        const row = select.get(name);
        return row ? (Y.decodeStateVector(Y.encodeStateVectorFromUpdate(row.data)).get(clientID) ?? 0) : -1;
      },
      close: () => reader.close(),
    };
  }
  let clock = -1;
  const stop = server.onStored((stored, stateVector) => {
    if (stored === name) clock = Y.decodeStateVector(stateVector).get(clientID) ?? 0;
  });
  return { clock: () => clock, close: stop };
}

async function seed(kind: Kind, dataDir: string, states: Uint8Array[]): Promise<string[]> {
  if (kind === 'tandem') return seedTandemStore(dataDir, states);
  const names = states.map((_, index) => `load-${index}`);
  seedHocuspocusSqlite(dataDir, new Map(names.map((name, index) => [name, states[index]])));
  return names;
}

/** From opening a connection to the first sync of a document that was not in memory. */
async function loadTime(server: ServerHandle, name: string, paragraphs: number): Promise<number> {
  const start = performance.now();
  const peer = connectPeer({ wsUrl: server.wsUrl, name, token: server.token });
  try {
    await peer.synced;
    const elapsed = performance.now() - start;
    const loaded = docParts(peer.ydoc).content.length;
    if (loaded !== paragraphs) throw new Error(`${server.kind} loaded ${loaded} of ${paragraphs} paragraphs of ${name}`);
    return elapsed;
  } finally {
    peer.destroy();
  }
}

/** Median time to read each named state from Tandem's SQLite file and decode it into a Y.Doc. */
async function decodeFloor(path: string, names: string[], runs: number): Promise<number[]> {
  const db = new Database(path, { readonly: true });
  try {
    const select = db.prepare<[string], { data: Buffer }>('SELECT data FROM documents WHERE name = ?');
    const times: number[] = [];
    for (const name of names) {
      times.push(
        await medianTime(runs, () => {
          const ydoc = new Y.Doc();
          Y.applyUpdate(ydoc, select.get(name)!.data);
          ydoc.destroy();
        }),
      );
    }
    return times;
  } finally {
    db.close();
  }
}
