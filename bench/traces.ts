/**
 * 6. Real editing traces, read from `bench/data/editing-traces`.
 *
 * Sequential: `seq-automerge-paper` typed through one Node peer into the text (one Yjs
 * transaction, hence one update message, per recorded edit), into Tandem's server, a bare
 * Hocuspocus and a bare Y.Doc; the final text must equal the trace's `endContent`.
 * Concurrent: `concurrent-friendsforever` with one peer per author; each author edits its own
 * view of the document as the trace's `parents` define it, and every peer must converge on
 * `endContent`.
 */
import * as Y from 'yjs';
import Database from 'better-sqlite3';
import { appendEmptyParagraph, seedHocuspocusSqlite, seedTandemStore, tandemSqlitePath } from './lib/docs.ts';
import { acked, connectPeer, destroyAll, sleep, tick, typingPacer, waitFor, type BenchPeer } from './lib/peers.ts';
import { createTandemDoc, withServer, type ServerHandle } from './lib/servers.ts';
import type { ServerSpec } from './lib/server-spec.ts';
import { medianTime, percentile } from './lib/stats.ts';
import { AuthorOutbox, replayConcurrent } from './lib/concurrent-replay.ts';
import {
  applyPatches,
  expectedText,
  readTrace,
  traceAvailable,
  traceDir,
  type ConcurrentTrace,
  type SequentialTrace,
} from './lib/traces.ts';
import { docParts } from '../shared/model/doc-layout.ts';
import { rowsFor, type BenchContext, type Benchmark } from './lib/types.ts';

const sequentialName = 'seq-automerge-paper';
const concurrentName = 'concurrent-friendsforever';
const paragraphId = 'trace';
const bareName = 'bare Hocuspocus';

interface ServerReplay {
  seconds: number;
  serverBytes: number;
  freshLoadMs: number;
  /** The server's CPU time per fresh peer's load of the live document. */
  freshLoadCpuMs: number;
  textMatches: boolean;
  storeBytes?: number;
  coldLoadMs?: number;
  /** The same stored bytes loaded by bare Hocuspocus with the stock SQLite persistence. */
  bareColdLoadMs?: number;
  /** Decoding the stored bytes into a Y.Doc in this process. */
  storeDecodeMs?: number;
}

export const traces: Benchmark = {
  name: 'traces',
  async run(ctx) {
    if (!traceAvailable(ctx.repoRoot, sequentialName) || !traceAvailable(ctx.repoRoot, concurrentName)) {
      return { rows: [], skipped: `traces: not found in ${traceDir(ctx.repoRoot)}; skipped` };
    }
    const { rows, add } = rowsFor('traces');

    const sequential = readTrace<SequentialTrace>(ctx.repoRoot, sequentialName);
    const count = ctx.quick ? 20_000 : sequential.txns.length;
    const txns = sequential.txns.slice(0, count);
    const expected = expectedText(sequential, count);
    const label = `${sequentialName}, ${count === sequential.txns.length ? 'all' : 'first'} ${count.toLocaleString('en-US')} edits`;

    ctx.log(`traces: ${label} into a bare Y.Doc`);
    const floor = replayIntoYDoc(txns, expected);
    const replays = new Map<string, ServerReplay>();
    for (const kind of ['tandem', 'bare'] as const) {
      ctx.log(`traces: ${label} into ${kind}`);
      replays.set(kind, await replayThroughServer(ctx, kind, txns, expected));
    }
    const tandem = replays.get('tandem')!;
    const bare = replays.get('bare')!;
    const lower = { case: label, better: 'lower' as const };
    add({ ...lower, metric: 'replay time', unit: 's', tandem: tandem.seconds, baseline: bare.seconds, baselineName: bareName });
    add({ ...lower, metric: 'replay time', unit: 's', tandem: tandem.seconds, baseline: floor.seconds, baselineName: 'bare Y.Doc, no network' });
    add({ case: label, metric: 'edits/s', unit: 'per-s', better: 'higher', tandem: count / tandem.seconds, baseline: count / bare.seconds, baselineName: bareName });
    add({ ...lower, metric: 'size on the server', unit: 'bytes', tandem: tandem.serverBytes, baseline: bare.serverBytes, baselineName: bareName });
    add({ ...lower, metric: 'size in the store', unit: 'bytes', tandem: tandem.storeBytes ?? null, baseline: floor.bytes, baselineName: 'bare Y.Doc state' });
    add({ ...lower, metric: 'fresh peer load, live doc', unit: 'ms', tandem: tandem.freshLoadMs, baseline: bare.freshLoadMs, baselineName: bareName });
    add({ ...lower, metric: 'server CPU per fresh peer load, live doc', unit: 'ms', tandem: tandem.freshLoadCpuMs, baseline: bare.freshLoadCpuMs, baselineName: bareName });
    add({ ...lower, metric: 'fresh peer load, after restart', unit: 'ms', tandem: tandem.coldLoadMs ?? null, baseline: tandem.bareColdLoadMs ?? null, baselineName: 'bare Hocuspocus + SQLite' });
    add({ ...lower, metric: 'fresh peer load, after restart', unit: 'ms', tandem: tandem.coldLoadMs ?? null, baseline: tandem.storeDecodeMs ?? null, baselineName: 'Y.applyUpdate of the stored bytes' });
    add({ case: label, metric: 'final text = expected', unit: 'check', better: 'higher', tandem: Number(tandem.textMatches), baseline: Number(bare.textMatches), baselineName: bareName });
    add({ case: label, metric: 'final text = expected', unit: 'check', better: 'higher', tandem: Number(tandem.textMatches), baseline: Number(floor.textMatches), baselineName: 'bare Y.Doc, no network' });

    const concurrent = readTrace<ConcurrentTrace>(ctx.repoRoot, concurrentName);
    const concurrentLabel = `${concurrentName}, ${concurrent.numAgents} authors, ${concurrent.txns.length.toLocaleString('en-US')} edits`;
    ctx.log(`traces: ${concurrentLabel}, local replicas only`);
    const localOnly = await replayConcurrent(concurrent, genesisState(), traceText, null);
    const converged = new Map<string, { seconds: number; converged: boolean }>();
    for (const kind of ['tandem', 'bare'] as const) {
      ctx.log(`traces: ${concurrentLabel} through ${kind}`);
      converged.set(kind, await replayConcurrentThroughServer(ctx, kind, concurrent));
    }
    const tandemConcurrent = converged.get('tandem')!;
    const bareConcurrent = converged.get('bare')!;
    const concurrentCase = { case: concurrentLabel, better: 'lower' as const };
    add({ ...concurrentCase, metric: 'time until all converge', unit: 's', tandem: tandemConcurrent.seconds, baseline: bareConcurrent.seconds, baselineName: bareName });
    add({ ...concurrentCase, metric: 'time until all converge', unit: 's', tandem: tandemConcurrent.seconds, baseline: localOnly.seconds, baselineName: 'the authors\' Y.Docs, no network' });
    add({ case: concurrentLabel, metric: 'all peers = endContent', unit: 'check', better: 'higher', tandem: Number(tandemConcurrent.converged), baseline: Number(bareConcurrent.converged), baselineName: bareName });
    add({ case: concurrentLabel, metric: 'all peers = endContent', unit: 'check', better: 'higher', tandem: Number(tandemConcurrent.converged), baseline: Number(localOnly.converged), baselineName: 'the authors\' Y.Docs, no network' });

    const notes = [
      'traces: the whole trace is typed into one paragraph (its newlines stay characters), as y-prosemirror would hold a paragraph of that text.',
    ];
    if (count < sequential.txns.length) notes.push(`traces: quick mode replays the first ${count.toLocaleString('en-US')} of ${sequential.txns.length.toLocaleString('en-US')} edits, checked against a plain-string replay; the full mode checks endContent.`);
    return { rows, notes };
  },
};

function replayIntoYDoc(txns: SequentialTrace['txns'], expected: string) {
  const ydoc = new Y.Doc();
  const ytext = appendEmptyParagraph(ydoc, paragraphId);
  const start = performance.now();
  for (const txn of txns) applyPatches(ydoc, ytext, txn.patches);
  const seconds = (performance.now() - start) / 1000;
  const result = { seconds, bytes: Y.encodeStateAsUpdate(ydoc).byteLength, textMatches: ytext.toString() === expected };
  ydoc.destroy();
  return result;
}

/** The Y.XmlText of the paragraph with id `trace`, or null while it has not arrived. */
function traceText(ydoc: Y.Doc): Y.XmlText | null {
  for (const block of docParts(ydoc).content.toArray()) {
    if (block instanceof Y.XmlElement && block.getAttribute('id') === paragraphId) {
      const text = block.get(0);
      return text instanceof Y.XmlText ? text : null;
    }
  }
  return null;
}

async function openDoc(server: ServerHandle, title: string): Promise<string> {
  return server.kind === 'tandem' ? createTandemDoc(server, title, '') : title.toLowerCase();
}

/** Types `txns` through one peer; time runs from the first edit to the acknowledgement of the last. */
async function typeThrough(peer: BenchPeer, ytext: Y.XmlText, txns: SequentialTrace['txns']): Promise<number> {
  const pace = typingPacer(peer.provider);
  const start = performance.now();
  for (const txn of txns) {
    applyPatches(peer.ydoc, ytext, txn.patches);
    await pace();
  }
  await acked(peer.provider, 600_000);
  return (performance.now() - start) / 1000;
}

/**
 * Decodes `state` into new Y.Docs a few times: this process's first decodings of a long editing
 * history run several times slower than later ones (V8 has not compiled that code yet), and
 * would otherwise land on the loads of whichever server is measured first.
 */
function warmUpDecoding(state: Uint8Array): void {
  for (let round = 0; round < 10; round++) Y.applyUpdate(new Y.Doc(), state);
}

/**
 * The median of `samples` fresh peers' loads of `name`, after one untimed load.
 */
async function freshLoads(server: ServerHandle, name: string, expected: string, samples: number): Promise<{ ms: number; cpuMs: number; bytes: number; matches: boolean }> {
  const loads = [await freshLoad(server, name, expected)];
  const cpuBefore = await server.cpuMs();
  for (let sample = 0; sample < samples; sample++) loads.push(await freshLoad(server, name, expected));
  const cpuMs = ((await server.cpuMs()) - cpuBefore) / samples;
  return { ms: percentile(loads.slice(1).map((load) => load.ms), 50), cpuMs, bytes: loads[0].bytes, matches: loads.every((load) => load.matches) };
}

async function freshLoad(server: ServerHandle, name: string, expected: string): Promise<{ ms: number; bytes: number; matches: boolean }> {
  const start = performance.now();
  const peer = connectPeer({ wsUrl: server.wsUrl, name, token: server.token });
  try {
    await peer.synced;
    const ms = performance.now() - start;
    return { ms, bytes: Y.encodeStateAsUpdate(peer.ydoc).byteLength, matches: traceText(peer.ydoc)?.toString() === expected };
  } finally {
    peer.destroy();
  }
}

async function replayThroughServer(ctx: BenchContext, kind: 'tandem' | 'bare', txns: SequentialTrace['txns'], expected: string): Promise<ServerReplay> {
  const dataDir = kind === 'tandem' ? ctx.tempDir('traces') : undefined;
  let name = '';
  let clock = 0;
  const clientID = { value: 0 };
  const live = await withServer({ kind, dataDir }, async (server) => {
    name = await openDoc(server, 'Trace');
    const peer = connectPeer({ wsUrl: server.wsUrl, name, token: server.token });
    try {
      await peer.synced;
      const ytext = appendEmptyParagraph(peer.ydoc, paragraphId);
      await acked(peer.provider);
      const seconds = await typeThrough(peer, ytext, txns);
      clientID.value = peer.ydoc.clientID;
      clock = Y.getState(peer.ydoc.store, peer.ydoc.clientID);
      warmUpDecoding(Y.encodeStateAsUpdate(peer.ydoc));
      const fresh = await freshLoads(server, name, expected, ctx.quick ? 5 : 9);
      return { seconds, serverBytes: fresh.bytes, freshLoadMs: fresh.ms, freshLoadCpuMs: fresh.cpuMs, textMatches: fresh.matches };
    } finally {
      peer.destroy();
    }
  });
  if (kind !== 'tandem') return live;

  // Tandem stored everything on close; read it back, then load it cold in a new server process.
  const db = new Database(tandemSqlitePath(dataDir!), { readonly: true });
  let stored: Buffer;
  try {
    stored = db.prepare<[string], { data: Buffer }>('SELECT data FROM documents WHERE name = ?').get(name)!.data;
  } finally {
    db.close();
  }
  const storedClock = Y.decodeStateVector(Y.encodeStateVectorFromUpdate(stored)).get(clientID.value) ?? 0;
  if (storedClock < clock) throw new Error(`the store holds ${storedClock} of ${clock} of the trace's items`);
  const storeDecodeMs = await medianTime(ctx.quick ? 5 : 9, () => Y.applyUpdate(new Y.Doc(), stored));
  // Each server first loads a copy of the same bytes under another name: the load timed after it
  // is cold for the document, not for the process.
  const [warmUpName] = await seedTandemStore(dataDir!, [stored]);
  // The same bytes in the stock SQLite extension's table, loaded by a bare Hocuspocus.
  const bareDir = ctx.tempDir('traces-bare');
  seedHocuspocusSqlite(bareDir, new Map([[name, stored], [warmUpName, stored]]));
  // A restart per sample, the two kinds in turn.
  const coldTimes: number[] = [];
  const bareColdTimes: number[] = [];
  let coldMatch = true;
  for (let sample = 0; sample < (ctx.quick ? 3 : 5); sample++) {
    const cold = await restartAndLoad({ kind: 'tandem', dataDir }, warmUpName, name, expected);
    const bareCold = await restartAndLoad({ kind: 'bare-sqlite', dataDir: bareDir }, warmUpName, name, expected);
    coldTimes.push(cold.ms);
    bareColdTimes.push(bareCold.ms);
    coldMatch &&= cold.matches && bareCold.matches;
  }
  return {
    ...live,
    storeBytes: stored.byteLength,
    coldLoadMs: percentile(coldTimes, 50),
    bareColdLoadMs: percentile(bareColdTimes, 50),
    storeDecodeMs,
    textMatches: live.textMatches && coldMatch,
  };
}

/**
 * Starts a server on a stored document and times a fresh peer's load of it. A restart, not a
 * cold process: `warmUpName`, a copy of the same document, is loaded first to warm the code up.
 */
async function restartAndLoad(spec: ServerSpec, warmUpName: string, name: string, expected: string) {
  return withServer(spec, async (server) => {
    await freshLoad(server, warmUpName, expected);
    return freshLoad(server, name, expected);
  });
}

/**
 * One peer per author. The first creates the paragraph; every author's edits go out through
 * its own peer; time runs until every peer holds `endContent`.
 */
async function replayConcurrentThroughServer(ctx: BenchContext, kind: 'tandem' | 'bare', trace: ConcurrentTrace) {
  const dataDir = kind === 'tandem' ? ctx.tempDir('concurrent') : undefined;
  return withServer({ kind, dataDir }, async (server) => {
    const name = await openDoc(server, 'Concurrent');
    const peers: BenchPeer[] = [];
    const outboxes: AuthorOutbox[] = [];
    try {
      for (let agent = 0; agent < trace.numAgents; agent++) peers.push(connectPeer({ wsUrl: server.wsUrl, name, token: server.token }));
      await Promise.all(peers.map((peer) => peer.synced));
      appendEmptyParagraph(peers[0].ydoc, paragraphId);
      await acked(peers[0].provider);
      await waitFor(() => peers.every((peer) => traceText(peer.ydoc) !== null), 10_000, 'the paragraph to reach every peer');
      const genesis = Y.encodeStateAsUpdate(peers[0].ydoc);
      outboxes.push(...peers.map((peer) => new AuthorOutbox(peer)));

      const start = performance.now();
      await replayConcurrent(trace, genesis, traceText, {
        send: (agent, update, seen) => outboxes[agent].push(update, seen),
        async pace() {
          await tick();
          while (peers.some((peer, agent) => peer.provider.unsyncedChanges > 200 || outboxes[agent].length > 1000)) await sleep(1);
        },
      });
      await waitFor(() => outboxes.every((outbox) => outbox.length === 0), 60_000, 'every author to send all its edits');
      await Promise.all(peers.map((peer) => acked(peer.provider, 60_000)));
      const converged = await waitFor(
        () => peers.every((peer) => traceText(peer.ydoc)?.length === trace.endContent.length),
        60_000,
        'every peer to converge',
      ).then(
        () => peers.every((peer) => traceText(peer.ydoc)?.toString() === trace.endContent),
        () => false,
      );
      return { seconds: (performance.now() - start) / 1000, converged };
    } finally {
      for (const outbox of outboxes) outbox.close();
      destroyAll(peers);
    }
  });
}

function genesisState(): Uint8Array {
  const ydoc = new Y.Doc();
  appendEmptyParagraph(ydoc, paragraphId);
  return Y.encodeStateAsUpdate(ydoc);
}
