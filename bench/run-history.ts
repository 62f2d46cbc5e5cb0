/**
 * 10. Run history. What a document's past runs cost the people working on it: Send
 * (`POST /api/docs/:id/runs`, which resolves once the `<id>/runs` mirror holds the new run), the
 * cold load of the mirror (a fresh server, a peer syncing `<id>/runs` as a browser tab does) and
 * the bytes it sends, for a document with 1,000 past runs (and 1,000 versions) beside a document
 * with none, measured in turn in the same servers. The cold load and the bytes are also set
 * beside a document whose past runs just fill the mirror's window (server/runs/run-mirror.ts),
 * which is what the mirror of the document with 1,000 holds. The past
 * runs are written through the run store with the server stopped, then loaded once, as a
 * restart would find them; the sends and cancels measured here go through the server.
 */
import * as Y from 'yjs';
import { startServer, type TandemServer } from '../server/index.ts';
import { openSqliteStore } from '../server/store/sqlite-store.ts';
import { docName } from '../shared/model/doc-layout.ts';
import { mirroredFinishedRuns } from '../server/runs/run-mirror.ts';
import { connectPeer } from './lib/peers.ts';
import { percentile } from './lib/stats.ts';
import { rowsFor, type Benchmark, type BenchContext } from './lib/types.ts';

const pastRuns = 1_000;
/** As many past runs as the mirror keeps finished ones. */
const windowRuns = mirroredFinishedRuns;

interface Api {
  server: TandemServer;
  call(path: string, method?: string, body?: unknown): Promise<{ status: number; body: any }>;
}

async function open(dataDir: string): Promise<Api> {
  const server = await startServer({ port: 0, host: '127.0.0.1', dataDir, quiet: true, agent: 'off' });
  return {
    server,
    async call(path, method = 'GET', body) {
      const response = await fetch(server.url + path, {
        method,
        headers: { authorization: `Bearer ${server.ownerToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
  };
}

/** A document with one ready instruction; its id and its block's. */
async function readyDoc(api: Api, title: string): Promise<{ docId: string; blockId: string }> {
  const doc = (await api.call('/api/docs', 'POST', { title, markdown: 'alpha one\n\nbeta two' })).body;
  const blockId = (await api.call(`/api/docs/${doc.id}`)).body.blocks[0].id as string;
  const note = await api.call(`/api/docs/${doc.id}/annotations`, 'POST', { kind: 'instruction', blockId, text: 'uppercase' });
  if (note.status !== 201) throw new Error(`the instruction was refused: ${JSON.stringify(note.body)}`);
  return { docId: doc.id, blockId };
}

/** `count` accepted runs of `docId`, each with one change, written through the store; and `versions` versions. */
async function seed(dataDir: string, docId: string, blockId: string, count: number, versions: number): Promise<void> {
  const store = openSqliteStore(dataDir);
  const agent = { id: 'bench-agent', name: 'Bench agent' };
  const editor = { id: 'bench-editor', name: 'Bench editor' };
  const empty = { insertions: Y.encodeSnapshot(Y.emptySnapshot), deletions: Y.encodeSnapshot(Y.emptySnapshot) };
  const started = Date.now() - count * 60_000;
  try {
    for (let i = 0; i < count; i++) {
      const id = `${docId}run${String(i).padStart(5, '0')}`;
      const at = started + i * 60_000;
      const instructionId = `${docId}ins${String(i).padStart(5, '0')}`;
      const instruction = `Rewrite the opening line, take ${i}, so that it reads more plainly`;
      await store.runs.createRun({ id, docId, createdBy: editor, createdAt: at, contextMarkdown: 'alpha one\n\nbeta two', items: [{ instructionId, blockId, instruction, quote: 'alpha one' }] });
      await store.runs.claimRun(id, agent, at + 1_000, at + 31_000);
      const change = { op: 'replace_block' as const, blockId, instructionId, before: 'alpha one', after: `Alpha one, take ${i}.` };
      await store.runs.recordBatch(id, agent.id, at + 2_000, { idempotencyKey: `${id}-k`, response: { applied: 1 }, changes: [change], scope: empty });
      await store.runs.completeRun(id, agent.id, at + 3_000, { summary: `Rewrote the opening line (${i}).`, refusals: new Map() });
      await store.runs.decideRun(id, 'accepted', at + 4_000, editor);
    }
    const state = (await store.loadState(docName(docId)))!;
    for (let i = 0; i < versions; i++) {
      await store.versions.add({ id: `${docId}v${String(i).padStart(5, '0')}`, docId, name: '', reason: 'auto', createdAt: started + i * 60_000, byName: 'Bench', state, snapshot: Y.encodeSnapshot(Y.emptySnapshot) });
    }
  } finally {
    await store.close();
  }
}

/** Syncs a fresh peer with `<docId>/runs`; how long it took and the bytes of what it got. */
async function loadMirror(api: Api, docId: string): Promise<{ ms: number; bytes: number }> {
  const ydoc = new Y.Doc();
  const started = performance.now();
  const peer = connectPeer({ wsUrl: `ws://127.0.0.1:${api.server.port}/collab`, name: docName(docId, 'runs'), token: api.server.ownerToken, ydoc });
  try {
    await peer.synced;
    return { ms: performance.now() - started, bytes: Y.encodeStateAsUpdate(ydoc).length };
  } finally {
    peer.destroy();
  }
}

export const runHistory: Benchmark = {
  name: 'run-history',
  async run(ctx: BenchContext) {
    const { rows, add } = rowsFor('run-history');
    const dataDir = ctx.tempDir('run-history');
    const loads = ctx.quick ? 5 : 11;
    const sends = ctx.quick ? 10 : 30;

    let api = await open(dataDir);
    const [many, none, window] = [await readyDoc(api, 'Many runs'), await readyDoc(api, 'No runs'), await readyDoc(api, 'A window of runs')];
    await api.server.close();
    ctx.log(`run-history: writing ${pastRuns} past runs and ${pastRuns} versions`);
    await seed(dataDir, many.docId, many.blockId, pastRuns, pastRuns);
    await seed(dataDir, window.docId, window.blockId, windowRuns, 0);

    // The first load after the runs were written brings each mirror in line with the store.
    api = await open(dataDir);
    for (const doc of [many, none, window]) await loadMirror(api, doc.docId);
    await api.server.close();

    ctx.log(`run-history: ${loads} cold loads of each mirror`);
    const docs = { many, none, window };
    const cold = { many: [] as number[], none: [] as number[], window: [] as number[] };
    const bytes = { many: 0, none: 0, window: 0 };
    const kinds = ['many', 'none', 'window'] as const;
    for (let round = 0; round < loads; round++) {
      api = await open(dataDir);
      try {
        // In turn, the first of a round rotating, so that a busy moment weighs on each alike.
        const order = kinds.map((_, index) => kinds[(index + round) % kinds.length]);
        for (const which of order) {
          const loaded = await loadMirror(api, docs[which].docId);
          cold[which].push(loaded.ms);
          bytes[which] = loaded.bytes;
        }
      } finally {
        await api.server.close();
      }
    }

    ctx.log(`run-history: ${sends} sends to each document, each cancelled`);
    const send = { many: [] as number[], none: [] as number[] };
    api = await open(dataDir);
    // Someone has each document open, as when Send is clicked: the mirrors stay loaded.
    const watchers = [many, none].map((doc) =>
      connectPeer({ wsUrl: `ws://127.0.0.1:${api.server.port}/collab`, name: docName(doc.docId, 'runs'), token: api.server.ownerToken }),
    );
    try {
      await Promise.all(watchers.map((watcher) => watcher.synced));
      for (let round = 0; round < sends; round++) {
        const order = round % 2 === 0 ? (['many', 'none'] as const) : (['none', 'many'] as const);
        for (const which of order) {
          const docId = (which === 'many' ? many : none).docId;
          const started = performance.now();
          const sent = await api.call(`/api/docs/${docId}/runs`, 'POST');
          send[which].push(performance.now() - started);
          if (sent.status !== 201) throw new Error(`Send was refused: ${JSON.stringify(sent.body)}`);
          const cancelled = await api.call(`/api/runs/${sent.body.runId}/cancel`, 'POST');
          if (cancelled.status !== 200) throw new Error(`Cancel was refused: ${JSON.stringify(cancelled.body)}`);
        }
      }
    } finally {
      for (const watcher of watchers) watcher.destroy();
      await api.server.close();
    }

    const caseName = `${pastRuns.toLocaleString('en-US')} past runs, ${pastRuns.toLocaleString('en-US')} versions`;
    const baselineName = 'a document with no past runs';
    const windowName = `a document with ${windowRuns} past runs`;
    add({ case: caseName, metric: 'Send, median', unit: 'ms', better: 'lower', tandem: percentile(send.many, 50), baseline: percentile(send.none, 50), baselineName });
    add({ case: caseName, metric: 'Send, p95', unit: 'ms', better: 'lower', tandem: percentile(send.many, 95), baseline: percentile(send.none, 95), baselineName });
    add({ case: caseName, metric: 'runs mirror cold load, median', unit: 'ms', better: 'lower', tandem: percentile(cold.many, 50), baseline: percentile(cold.none, 50), baselineName });
    add({ case: caseName, metric: 'runs mirror cold load, median', unit: 'ms', better: 'lower', tandem: percentile(cold.many, 50), baseline: percentile(cold.window, 50), baselineName: windowName });
    add({ case: caseName, metric: 'runs mirror bytes', unit: 'bytes', better: 'lower', tandem: bytes.many, baseline: bytes.window, baselineName: windowName });
    return {
      rows,
      notes: [
        `run-history: a document with no past runs has a runs mirror of ${bytes.none} bytes; the bench's own sends, each cancelled, add runs to the documents it sends to, after the loads.`,
      ],
    };
  },
};
