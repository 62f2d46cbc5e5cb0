/**
 * 3. Persistence. How soon an edit is durable in the store (and whether it is by the time the
 * server acknowledges it), how many edits per second reach it in a burst, and how long a fresh peer waits for a 100 KB, 1 MB or 10 MB document loaded cold
 * from the store. Tandem's server against bare Hocuspocus with the stock SQLite extension's
 * persistence (`bare-sqlite`); loads also against the floor of reading the blob and decoding it
 * in this process.
 */
import * as Y from 'yjs';
import Database from 'better-sqlite3';
import { buildInitialState } from '../server/docs/create-doc.ts';
import { docParts } from '../shared/model/doc-layout.ts';
import {
  docOfStateSize,
  paragraphText,
  type SizedDoc,
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
/** Peers typing at once in the second burst. */
const concurrentWriters = 10;

interface Durability {
  /** From a single edit until it is durable, and until the server acknowledged it. */
  latencies: number[];
  ackLatencies: number[];
  /** How many single edits, and the burst's last, were durable when their acknowledgement arrived. */
  durableAtAck: number;
  checked: number;
  burst: number;
  /** Edits per second from the first edit of the burst until the last is durable. */
  durableRate: number;
  /** Edits per second from the first edit until the server acknowledged the last. */
  ingestRate: number;
  /** From the server's acknowledgement of the last edit until it is durable. */
  lastToDurable: number;
  /** The same figures for several writers typing at once. */
  concurrent: BurstResult;
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
      // The baseline waits out a 2 s debounce per edit; Tandem's edits take milliseconds.
      const samples = (kind: Kind) => (kind === 'tandem' ? (ctx.quick ? 20 : 100) : ctx.quick ? 2 : 10);
      ctx.log(`persistence: single edits until durable (${samples('tandem')} on Tandem, ${samples('bare-sqlite')} on the baseline)`);
      const singles = await Promise.all(probes.map((probe) => probe.singleEdits(samples(probe.kind))));
      for (const [index, probe] of probes.entries()) {
        const burst = ctx.quick ? 10_000 : 100_000;
        ctx.log(`persistence: ${probe.kind}, burst of ${burst} edits`);
        const single = singles[index];
        const { durableAtAck, ...rest } = await probe.burst(burst);
        ctx.log(`persistence: ${probe.kind}, ${concurrentWriters} writers at once, ${burst} edits in all`);
        const concurrent = await probe.concurrentBurst(burst, concurrentWriters);
        durability.set(probe.kind, {
          latencies: single.map((edit) => edit.durable),
          ackLatencies: single.map((edit) => edit.acknowledged),
          durableAtAck: single.filter((edit) => edit.durableAtAck).length + Number(durableAtAck) + Number(concurrent.durableAtAck),
          checked: single.length + 2,
          concurrent,
          ...rest,
        });
      }
    } finally {
      for (const probe of probes) await probe.close();
    }
    const tandem = durability.get('tandem')!;
    const bare = durability.get('bare-sqlite')!;
    const single = { case: `single edits ×${tandem.latencies.length} (baseline ×${bare.latencies.length})`, baselineName, better: 'lower' as const };
    add({ ...single, metric: 'edit → acknowledged p50', unit: 'ms', tandem: percentile(tandem.ackLatencies, 50), baseline: percentile(bare.ackLatencies, 50) });
    add({ ...single, metric: 'edit → durable p50', unit: 'ms', tandem: percentile(tandem.latencies, 50), baseline: percentile(bare.latencies, 50) });
    add({ ...single, metric: 'edit → durable max', unit: 'ms', tandem: summarize(tandem.latencies).max, baseline: summarize(bare.latencies).max });
    add({
      case: 'single edits + the bursts\' last',
      metric: 'durable when acknowledged',
      unit: 'check',
      better: 'higher',
      tandem: Number(tandem.durableAtAck === tandem.checked),
      baseline: Number(bare.durableAtAck === bare.checked),
      baselineName,
    });
    const burst = { case: `burst of ${tandem.burst.toLocaleString('en-US')} edits`, baselineName };
    add({ ...burst, metric: 'edits acknowledged/s', unit: 'per-s', better: 'higher', tandem: tandem.ingestRate, baseline: bare.ingestRate });
    add({ ...burst, metric: 'edits durable/s', unit: 'per-s', better: 'higher', tandem: tandem.durableRate, baseline: bare.durableRate });
    add({ ...burst, metric: 'last ack → durable', unit: 'ms', better: 'lower', tandem: tandem.lastToDurable, baseline: bare.lastToDurable });
    const together = { case: `${concurrentWriters} writers, ${tandem.burst.toLocaleString('en-US')} edits`, baselineName };
    add({ ...together, metric: 'edits acknowledged/s', unit: 'per-s', better: 'higher', tandem: tandem.concurrent.ingestRate, baseline: bare.concurrent.ingestRate });
    add({ ...together, metric: 'edits durable/s', unit: 'per-s', better: 'higher', tandem: tandem.concurrent.durableRate, baseline: bare.concurrent.durableRate });
    add({ ...together, metric: 'last ack → durable', unit: 'ms', better: 'lower', tandem: tandem.concurrent.lastToDurable, baseline: bare.concurrent.lastToDurable });

    const sizes = ctx.quick ? loadSizes.slice(0, -1) : loadSizes;
    ctx.log(`persistence: building documents of ${sizes.map(formatBytes).join(', ')}`);
    const docs = sizes.map((size) => docOfStateSize(size));
    const { loads, cpu, floor, peerDecode } = await coldLoads(ctx, docs);
    const peerShare = docs.map((doc, index) => `${formatBytes(doc.state.byteLength)} ${peerDecode[index].toPrecision(3)} ms (${(peerDecode[index] / floor[index]).toFixed(2)}× the floor)`);

    for (const [index, doc] of docs.entries()) {
      const tandemLoad = percentile(loads.get('tandem')![index], 50);
      const bareLoad = percentile(loads.get('bare-sqlite')![index], 50);
      const label = `${formatBytes(doc.state.byteLength)} doc, cold`;
      add({ case: label, metric: 'fresh peer load', unit: 'ms', better: 'lower', tandem: tandemLoad, baseline: bareLoad, baselineName });
      add({ case: label, metric: 'fresh peer load', unit: 'ms', better: 'lower', tandem: tandemLoad, baseline: floor[index], baselineName: 'SQLite read + Y.applyUpdate' });
      const serverCpu = (kind: Kind) => summarize(cpu.get(kind)![index]).mean;
      add({ case: label, metric: 'server CPU per load', unit: 'ms', better: 'lower', tandem: serverCpu('tandem'), baseline: serverCpu('bare-sqlite'), baselineName });
    }
    return {
      rows,
      notes: [
        'persistence: Tandem appends each update to a log in SQLite before it acknowledges it ("edit → durable" is read by polling the file every millisecond or so, so it can show a little above "edit → acknowledged"); the baseline stores a changed document 2 s after the last change (at most 10 s while changes keep coming), so its "edit → durable" is mostly that debounce.',
        `persistence: a fresh peer's own share of a cold load, whatever the server does: decoding the state into a Y.Doc with an \`update\` listener, as a provider's document has (Yjs encodes the decoded state again for the event), ${peerShare.join(', ')}.`,
      ],
    };
  },
};

type BurstResult = Omit<Durability, 'latencies' | 'ackLatencies' | 'checked' | 'durableAtAck' | 'concurrent'> & { durableAtAck: boolean };

interface SingleEdit {
  /** From the edit until the store holds it. */
  durable: number;
  /** From the edit until the peer has the server's acknowledgement. */
  acknowledged: number;
  /** Whether the store held it in the turn the acknowledgement was seen in. */
  durableAtAck: boolean;
}

interface DurabilityProbe {
  kind: Kind;
  singleEdits(samples: number): Promise<SingleEdit[]>;
  burst(edits: number): Promise<BurstResult>;
  /** `edits` in all from `writers` new peers typing at once, each in its own paragraph. */
  concurrentBurst(edits: number, writers: number): Promise<BurstResult>;
  close(): Promise<void>;
}

/** A server of `kind` with one document, one peer on it, and a watch on its store. */
async function openProbe(ctx: BenchContext, kind: Kind): Promise<DurabilityProbe> {
  const dataDir = ctx.tempDir(`persist-${kind}`);
  const server = await launchServer({ kind, dataDir });
  // Paragraph 0 for the single typist, 1…concurrentWriters for the writers typing at once.
  const markdown = paragraphsMarkdown(20, 200);
  const tandem = kind === 'tandem';
  const ydoc = new Y.Doc();
  let peer: BenchPeer | null = null;
  let stored: { clock(clientID: number): number; close(): void } | null = null;
  let name = '';
  const close = async () => {
    peer?.destroy();
    stored?.close();
    await server.stop();
  };
  try {
    name = tandem ? await createTandemDoc(server, 'Durable', markdown) : 'durable';
    if (!tandem) Y.applyUpdate(ydoc, buildInitialState({ kind: 'text', title: 'Durable', markdown }));
    peer = connectPeer({ wsUrl: server.wsUrl, name, token: server.token, ydoc });
    stored = storeWatch(server, dataDir, name);
    await peer.synced;
    await acked(peer.provider);
  } catch (error) {
    await close();
    throw error;
  }
  const typist = peer;
  const watch = stored!;
  const storedClock = () => watch.clock(ydoc.clientID);
  const typed = paragraphText(ydoc);
  const ownClock = () => Y.getState(ydoc.store, ydoc.clientID);

  return {
    kind,
    async singleEdits(samples) {
      await waitFor(() => storedClock() >= ownClock(), 20_000, 'the initial state to be stored');
      const edits: SingleEdit[] = [];
      for (let sample = 0; sample < samples; sample++) {
        await sleep(100);
        const start = performance.now();
        typed.insert(typed.length, 'x');
        const expected = ownClock();
        let durable: number | null = null;
        let acknowledged: number | null = null;
        let durableAtAck = false;
        await waitFor(
          () => {
            const now = performance.now();
            const isDurable = storedClock() >= expected;
            if (isDurable && durable === null) durable = now - start;
            if (acknowledged === null && typist.provider.unsyncedChanges === 0) {
              acknowledged = now - start;
              durableAtAck = isDurable;
            }
            return durable !== null && acknowledged !== null;
          },
          20_000,
          'an edit to be durable and acknowledged',
          1,
        );
        edits.push({ durable: durable!, acknowledged: acknowledged!, durableAtAck });
      }
      return edits;
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
      return burstResult(edits, start, () => storedClock() >= expected, 'the burst to be durable');
    },
    async concurrentBurst(edits, writers) {
      const peers: BenchPeer[] = [];
      try {
        for (let index = 0; index < writers; index++) {
          const writer = connectPeer({ wsUrl: server.wsUrl, name, token: server.token });
          peers.push(writer);
          await writer.synced;
          await acked(writer.provider);
        }
        const start = performance.now();
        // Each writer types into its own paragraph, paced on its own acknowledgements.
        await Promise.all(
          peers.map(async (writer, index) => {
            const text = paragraphText(writer.ydoc, index + 1);
            const pace = typingPacer(writer.provider);
            for (let edit = 0; edit < edits / writers; edit++) {
              text.insert(text.length, String.fromCharCode(97 + (edit % 26)));
              await pace();
            }
          }),
        );
        await Promise.all(peers.map((writer) => acked(writer.provider)));
        const isDurable = () => peers.every((writer) => watch.clock(writer.ydoc.clientID) >= Y.getState(writer.ydoc.store, writer.ydoc.clientID));
        return await burstResult(edits, start, isDurable, 'the concurrent burst to be durable');
      } finally {
        for (const writer of peers) writer.destroy();
      }
    },
    close,
  };
}

/**
 * How much of one peer's typing the store holds for `name` (that peer's clock there; -1 before
 * the first write). Tandem's store is its compacted state plus the update log, read from here
 * as a restarted server would (WAL mode: reading blocks no write), the log incrementally; a
 * `bare-sqlite` server reports its writes instead (see server-process.ts).
 */
/**
 * The figures of a burst of `edits` typed from `start` and acknowledged just now: waits until
 * `isDurable` holds (`what` names it in a timeout).
 */
async function burstResult(edits: number, start: number, isDurable: () => boolean, what: string): Promise<BurstResult> {
  const ackedAt = performance.now();
  const durableAtAck = isDurable();
  await waitFor(isDurable, 30_000, what, 2);
  const durableAt = durableAtAck ? ackedAt : performance.now();
  return {
    burst: edits,
    durableAtAck,
    durableRate: edits / ((durableAt - start) / 1000),
    ingestRate: edits / ((ackedAt - start) / 1000),
    lastToDurable: durableAt - ackedAt,
  };
}

function storeWatch(server: ServerHandle, dataDir: string, name: string): { clock(clientID: number): number; close(): void } {
  if (server.kind === 'tandem') {
    const reader = new Database(tandemSqlitePath(dataDir), { readonly: true, timeout: 5000 });
    const selectState = reader.prepare<[string], { data: Buffer }>('SELECT data FROM documents WHERE name = ?');
    const selectLogged = reader.prepare<[string, number], { seq: number; data: Buffer }>('SELECT seq, data FROM update_log WHERE name = ? AND seq > ? ORDER BY seq');
    let lastSeq = 0;
    const logged = new Map<number, number>();
    return {
      clock(clientID) {
        for (const row of selectLogged.all(name, lastSeq)) {
          lastSeq = row.seq;
          for (const [client, clock] of Y.parseUpdateMeta(row.data).to) logged.set(client, Math.max(logged.get(client) ?? -1, clock));
        }
        const row = selectState.get(name);
        const stateClock = row ? (Y.decodeStateVector(Y.encodeStateVectorFromUpdate(row.data)).get(clientID) ?? 0) : -1;
        return Math.max(stateClock, logged.get(clientID) ?? -1);
      },
      close: () => reader.close(),
    };
  }
  let vector: Map<number, number> | null = null;
  const stop = server.onStored((stored, stateVector) => {
    if (stored === name) vector = Y.decodeStateVector(stateVector);
  });
  return { clock: (clientID) => (vector ? (vector.get(clientID) ?? 0) : -1), close: stop };
}

async function seed(kind: Kind, dataDir: string, states: Uint8Array[]): Promise<string[]> {
  if (kind === 'tandem') return seedTandemStore(dataDir, states);
  const names = states.map((_, index) => `load-${index}`);
  seedHocuspocusSqlite(dataDir, new Map(names.map((name, index) => [name, states[index]])));
  return names;
}

/**
 * Fresh peers' loads of `docs` from the store, by kind and document (every sample), and the
 * floor of each document: reading it from Tandem's SQLite file and decoding it in this process.
 * Each round starts a new server of each kind on stores holding `copies` copies of every
 * document, and loads each copy once, so that every load comes from the store; the two kinds'
 * loads alternate, so that they share the machine's load and this process's warmth alike.
 */
async function coldLoads(
  ctx: BenchContext,
  docs: SizedDoc[],
): Promise<{ loads: Map<Kind, number[][]>; cpu: Map<Kind, number[][]>; floor: number[]; peerDecode: number[] }> {
  const rounds = ctx.quick ? 1 : 3;
  const copies = ctx.quick ? 5 : 3;
  const warmUp = docOfStateSize(20_000);
  const states = [warmUp.state, ...docs.flatMap((doc) => Array.from({ length: copies }, () => doc.state))];
  const stores = new Map<Kind, { dataDir: string; warmUpName: string; names: string[][] }>();
  for (const kind of kinds) {
    const dataDir = ctx.tempDir(`load-${kind}`);
    const [warmUpName, ...names] = await seed(kind, dataDir, states);
    stores.set(kind, { dataDir, warmUpName, names: docs.map((_, index) => names.slice(index * copies, (index + 1) * copies)) });
  }
  const tandemStore = stores.get('tandem')!;
  const { floor, peerDecode } = await decodeFloor(tandemSqlitePath(tandemStore.dataDir), tandemStore.names.map((names) => names[0]), ctx.quick ? 3 : 5);
  const loads = new Map<Kind, number[][]>(kinds.map((kind) => [kind, docs.map(() => [])]));
  /** Each server's CPU time over a round's loads of a document, divided by their number. */
  const cpu = new Map<Kind, number[][]>(kinds.map((kind) => [kind, docs.map(() => [])]));
  for (let round = 0; round < rounds; round++) {
    ctx.log(`persistence: cold loads, round ${round + 1} of ${rounds}, ${copies} of each document on each server`);
    await withServer({ kind: 'tandem', dataDir: tandemStore.dataDir }, (tandem) =>
      withServer({ kind: 'bare-sqlite', dataDir: stores.get('bare-sqlite')!.dataDir }, async (bare) => {
        const servers = [tandem, bare];
        // "Cold" is about the document, not the process: one small load warms each server's code up first.
        for (const server of servers) await loadTime(server, stores.get(server.kind as Kind)!.warmUpName, warmUp.paragraphs);
        for (const [index, doc] of docs.entries()) {
          const cpuBefore = await Promise.all(servers.map((server) => server.cpuMs()));
          for (let copy = 0; copy < copies; copy++) {
            for (const server of copy % 2 === 0 ? servers : [...servers].reverse()) {
              const kind = server.kind as Kind;
              loads.get(kind)![index].push(await loadTime(server, stores.get(kind)!.names[index][copy], doc.paragraphs));
            }
          }
          const cpuAfter = await Promise.all(servers.map((server) => server.cpuMs()));
          for (const [at, server] of servers.entries()) cpu.get(server.kind as Kind)![index].push((cpuAfter[at] - cpuBefore[at]) / copies);
        }
      }),
    );
  }
  return { loads, cpu, floor, peerDecode };
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

/**
 * Median time to read each named state from Tandem's SQLite file and decode it into a Y.Doc
 * (`floor`), and to decode it into a Y.Doc that has an `update` listener (`peerDecode`): every
 * provider's document has one, and Yjs then encodes the decoded state once more for the event,
 * so this is what the fresh peer itself spends, whatever the server does.
 */
async function decodeFloor(path: string, names: string[], runs: number): Promise<{ floor: number[]; peerDecode: number[] }> {
  const db = new Database(path, { readonly: true });
  try {
    const select = db.prepare<[string], { data: Buffer }>('SELECT data FROM documents WHERE name = ?');
    const decode = (name: string, listen: boolean) => () => {
      const state = select.get(name)!.data;
      const ydoc = new Y.Doc();
      if (listen) ydoc.on('update', () => {});
      Y.applyUpdate(ydoc, state);
      ydoc.destroy();
    };
    const floor: number[] = [];
    const peerDecode: number[] = [];
    for (const name of names) {
      floor.push(await medianTime(runs, decode(name, false)));
      peerDecode.push(await medianTime(runs, decode(name, true)));
    }
    return { floor, peerDecode };
  } finally {
    db.close();
  }
}
