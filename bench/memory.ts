/**
 * 4. Memory. Server heap per idle connection and per loaded document: 1,000 connections over
 * 100 documents (quick: 200 over 20), ten per document, each its own WebSocket with presence
 * as a browser tab has it. The server runs alone in a child process and reports its heap after
 * two full garbage collections. Tandem against bare Hocuspocus holding the same content.
 */
import * as Y from 'yjs';
import { buildInitialState } from '../server/docs/create-doc.ts';
import { paragraphsMarkdown } from './lib/docs.ts';
import { acked, connectPeer, connectPeers, destroyAll, sleep, type BenchPeer } from './lib/peers.ts';
import { createTandemDoc, withServer, type ServerHandle } from './lib/servers.ts';
import { formatBytes } from './lib/table.ts';
import { rowsFor, type BenchContext, type Benchmark } from './lib/types.ts';

interface Footprint {
  perConnection: number;
  perDocument: number;
  heapEmpty: number;
  heapFull: number;
  rssFull: number;
}

export const memory: Benchmark = {
  name: 'memory',
  async run(ctx) {
    const documents = ctx.quick ? 20 : 100;
    const connections = documents * 10;
    const markdown = paragraphsMarkdown(40, 300);
    const results = new Map<string, Footprint>();
    for (const kind of ['tandem', 'bare'] as const) {
      const dataDir = kind === 'tandem' ? ctx.tempDir('memory') : undefined;
      await withServer({ kind, dataDir }, async (server) => {
        results.set(kind, await measureFootprint(ctx, server, documents, connections, markdown));
      });
    }

    const tandem = results.get('tandem')!;
    const bare = results.get('bare')!;
    const { rows, add } = rowsFor('memory');
    const label = `${connections.toLocaleString('en-US')} conns / ${documents} docs`;
    const pair = { case: label, unit: 'bytes' as const, better: 'lower' as const, baselineName: 'bare Hocuspocus' };
    add({ ...pair, metric: 'heap per idle connection', tandem: tandem.perConnection, baseline: bare.perConnection });
    add({ ...pair, metric: 'heap per loaded document', tandem: tandem.perDocument, baseline: bare.perDocument });
    add({ ...pair, metric: 'heap, server started', tandem: tandem.heapEmpty, baseline: bare.heapEmpty });
    add({ ...pair, metric: 'heap, all connected', tandem: tandem.heapFull, baseline: bare.heapFull });
    add({ ...pair, metric: 'RSS, all connected', tandem: tandem.rssFull, baseline: bare.rssFull });
    return {
      rows,
      notes: [`memory: each document holds ${formatBytes(buildInitialState({ kind: 'text', title: 'Memory', markdown }).byteLength)} of Yjs state (40 paragraphs)`],
    };
  },
};

/**
 * Heap after start (H0), after one connection per document has loaded it (H1), and after the
 * other nine per document joined (H2): per connection = (H2 − H1) / extra connections;
 * per document = (H1 − H0) / documents − per connection.
 */
async function measureFootprint(
  ctx: BenchContext,
  server: ServerHandle,
  documents: number,
  connections: number,
  markdown: string,
): Promise<Footprint> {
  const tandem = server.kind === 'tandem';
  const names: string[] = [];
  for (let index = 0; index < documents; index++) {
    names.push(tandem ? await createTandemDoc(server, `Memory ${index}`, markdown) : `memory-${index}`);
  }
  const initial = tandem ? null : buildInitialState({ kind: 'text', title: 'Memory', markdown });
  const open = (index: number) => {
    const ydoc = new Y.Doc();
    // A bare server starts empty: the first peer of each document brings the content.
    if (initial && index < documents) Y.applyUpdate(ydoc, initial);
    return connectPeer({ wsUrl: server.wsUrl, name: names[index % documents], token: server.token, ydoc, awareness: true });
  };

  const peers: BenchPeer[] = [];
  try {
    await sleep(300);
    const h0 = await server.memory();
    ctx.log(`memory: ${server.kind}, loading ${documents} documents`);
    peers.push(...(await connectPeers(documents, open, 25)));
    await Promise.all(peers.map((peer) => acked(peer.provider)));
    await sleep(500);
    const h1 = await server.memory();
    ctx.log(`memory: ${server.kind}, ${connections - documents} more connections`);
    peers.push(...(await connectPeers(connections - documents, (index) => open(documents + index), 50)));
    await sleep(1000);
    const h2 = await server.memory();
    const perConnection = (h2.heapUsed - h1.heapUsed) / (connections - documents);
    return {
      perConnection,
      perDocument: (h1.heapUsed - h0.heapUsed) / documents - perConnection,
      heapEmpty: h0.heapUsed,
      heapFull: h2.heapUsed,
      rssFull: h2.rss,
    };
  } finally {
    destroyAll(peers);
    await sleep(300);
  }
}
