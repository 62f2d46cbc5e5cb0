/**
 * 8. Several instances (docs/scale.md). Two Tandem instances on one
 * PostgreSQL and one Redis beside one instance on the same PostgreSQL, each in its own process:
 * - fan-out: one peer types a character every 100 ms on the first instance; the receivers are
 *   spread over both instances (two) or all on the one; latency from edit to arrival;
 * - durable edits: 10 peers type as fast as the server acknowledges them (at most 8 edits
 *   outstanding each), spread over the instances; acknowledged edits per second, each durable
 *   in PostgreSQL when acknowledged (SCALE2).
 * The second instance buys availability, not speed: every edit still goes through one database
 * and, with two, through Redis too. PostgreSQL and Redis are those of TEST_DATABASE_URL and
 * TEST_REDIS_URL, or private ones started from Debian's binaries.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { paragraphsMarkdown, paragraphText } from './lib/docs.ts';
import { acked, connectPeer, connectPeers, destroyAll, sleep, waitFor, type BenchPeer } from './lib/peers.ts';
import { createTandemDoc, launchServer, type ServerHandle } from './lib/servers.ts';
import { summarize } from './lib/stats.ts';
import { rowsFor, type Benchmark } from './lib/types.ts';
import { postgresSchemas } from '../tests/helpers/pg-schema.ts';
import { useRedis } from '../tests/helpers/services.ts';

const editsPerSecond = 10;
const writers = 10;

interface Figures {
  fanOut: Map<number, ReturnType<typeof summarize> & { lost: number }>;
  ackedPerSecond: number;
}

export const scale: Benchmark = {
  name: 'scale',
  async run(ctx) {
    const receiverCounts = ctx.quick ? [10] : [10, 100];
    const seconds = ctx.quick ? 2 : 10;
    const postgres = postgresSchemas();
    let redis: Awaited<ReturnType<typeof useRedis>>;
    try {
      await postgres.setUp();
      redis = await useRedis();
    } catch (error) {
      await postgres.tearDown().catch(() => {});
      return { rows: [], skipped: `scale: skipped: ${error instanceof Error ? error.message : String(error)}` };
    }
    const figures = new Map<1 | 2, Figures>();
    try {
      for (const count of [1, 2] as const) {
        const dataDir = ctx.tempDir('scale');
        const databaseUrl = await postgres.fresh();
        const servers: ServerHandle[] = [];
        try {
          // One after the other: the second finds the signing keys the first made.
          for (let n = 0; n < count; n++) servers.push(await launchServer({ kind: 'tandem', dataDir, databaseUrl, redisUrl: count === 2 ? redis.url : undefined }));
          const fanOut = new Map();
          for (const receivers of receiverCounts) {
            ctx.log(`scale: ${count} instance(s), ${receivers} receivers`);
            fanOut.set(receivers, await measureFanOut(servers, receivers, seconds * editsPerSecond));
          }
          ctx.log(`scale: ${count} instance(s), ${writers} writers for ${seconds} s`);
          figures.set(count, { fanOut, ackedPerSecond: await measureDurableEdits(servers, seconds) });
        } finally {
          await Promise.all(servers.map((server) => server.stop()));
        }
      }
    } finally {
      await redis.stop();
      await postgres.tearDown();
    }

    const { rows, add } = rowsFor('scale');
    const two = figures.get(2)!;
    const one = figures.get(1)!;
    const baselineName = 'one instance';
    for (const receivers of receiverCounts) {
      const [t, b] = [two.fanOut.get(receivers)!, one.fanOut.get(receivers)!];
      const pair = { case: `two instances, ${receivers} receivers`, baselineName, better: 'lower' as const, unit: 'ms' as const };
      add({ ...pair, metric: 'fan-out latency p50', tandem: t.p50, baseline: b.p50 });
      add({ ...pair, metric: 'fan-out latency p99', tandem: t.p99, baseline: b.p99 });
    }
    add({ case: `two instances, ${writers} writers`, metric: 'durable edits', unit: 'per-s', better: 'higher', tandem: two.ackedPerSecond, baseline: one.ackedPerSecond, baselineName });
    const notes = [...figures].flatMap(([count, figure]) =>
      [...figure.fanOut].filter(([, result]) => result.lost > 0).map(([receivers, result]) => `scale: ${count} instance(s), ${receivers} receivers: ${result.lost} deliveries never arrived`),
    );
    return { rows, notes };
  },
};

/** The typist on the first instance; receiver i on instance i mod the number of instances. */
async function measureFanOut(servers: ServerHandle[], receivers: number, edits: number) {
  const name = await createTandemDoc(servers[0], 'Fan-out', paragraphsMarkdown(20, 200));
  const peers: BenchPeer[] = [];
  try {
    const typist = connectPeer({ wsUrl: servers[0].wsUrl, name, token: servers[0].token });
    peers.push(typist);
    await typist.synced;
    await acked(typist.provider);
    peers.push(...(await connectPeers(receivers, (index) => connectPeer({ wsUrl: servers[index % servers.length].wsUrl, name, token: servers[0].token }))));
    const typed = paragraphText(typist.ydoc);
    const sentAt = new Float64Array(edits);
    const latencies: number[] = [];
    let complete = 0;
    for (const peer of peers.slice(1)) {
      const text = paragraphText(peer.ydoc);
      const base = text.length;
      let seen = 0;
      peer.ydoc.on('update', () => {
        const now = performance.now();
        const arrived = text.length - base;
        while (seen < arrived && seen < edits) latencies.push(now - sentAt[seen++]);
        if (seen === edits) complete++;
      });
    }
    await sleep(500);
    const start = performance.now();
    for (let edit = 0; edit < edits; edit++) {
      const wait = start + (edit * 1000) / editsPerSecond - performance.now();
      if (wait > 0) await sleep(wait);
      sentAt[edit] = performance.now();
      typed.insert(typed.length, String.fromCharCode(97 + (edit % 26)));
    }
    await waitFor(() => complete >= receivers, 15_000, 'every receiver to get every edit').catch(() => {});
    return { ...summarize(latencies), lost: receivers * edits - latencies.length };
  } finally {
    destroyAll(peers);
    await sleep(200);
  }
}

/** Acknowledged edits per second of `writers` peers typing as fast as acknowledgements allow, spread over the instances. */
async function measureDurableEdits(servers: ServerHandle[], seconds: number): Promise<number> {
  const name = await createTandemDoc(servers[0], 'Durable', paragraphsMarkdown(writers, 50));
  const peers = await connectPeers(writers, (index) => connectPeer({ wsUrl: servers[index % servers.length].wsUrl, name, token: servers[0].token }));
  try {
    await Promise.all(peers.map((peer) => acked(peer.provider)));
    let sent = 0;
    const deadline = performance.now() + seconds * 1000;
    const start = performance.now();
    await Promise.all(
      peers.map(async (peer, index) => {
        const text = paragraphText(peer.ydoc, index);
        while (performance.now() < deadline) {
          if (peer.provider.unsyncedChanges < 8) {
            text.insert(0, 'x');
            sent++;
          }
          await nextTurn();
        }
      }),
    );
    await Promise.all(peers.map((peer) => acked(peer.provider)));
    return sent / ((performance.now() - start) / 1000);
  } finally {
    destroyAll(peers);
    await sleep(200);
  }
}
