/**
 * 9. Heavy input (PROTOCOL.md LIMIT8–LIMIT11). One person creates and reads a page of 20,000
 * elements and an agent changes one of its elements (replace_element), the person previews and
 * accepts; and a text document of 60,000 paragraphs (its blocks and its Markdown, right after the
 * import and again from a new server on the same data, which keeps nothing derived) — on a Tandem
 * server of its own process, while another user asks `/healthz` every 20 ms. Printed: each
 * request's time beside the libraries' own time for the same work in this process (for a page,
 * the old server's DOMPurify over jsdom for one sanitize, and parse5's bare parse, the floor;
 * markdown-it + prosemirror-markdown for one parse and one serialize; one Y.applyUpdate of the
 * stored state and one serialize for a read by a new server), the server's longest event-loop
 * stall beside its floor (the same server's while idle; for text, one bare better-sqlite3 write or
 * read of the document's state blob, which the SQLite store does on the loop), and the other
 * user's slowest answer beside the slowest with the server idle.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { JSDOM } from 'jsdom';
import { parseFragment } from 'parse5';
import { createPageTools } from '../shared/page/page-tools.ts';
import { serverPageTools } from '../server/pages/page-tools.ts';
import { openKeyRing } from '../server/auth/keys.ts';
import { signToken } from '../server/auth/tokens.ts';
import { parseWholeMarkdown, serializer } from '../shared/model/markdown.ts';
import { withBlockIds } from '../shared/model/block-ids.ts';
import { serializeMarkdown } from '../shared/model/markdown-output.ts';
import { launchServer, type ServerHandle } from './lib/servers.ts';
import * as Y from 'yjs';
import { buildInitialState } from '../server/docs/create-doc.ts';
import { rowsFor, type BenchContext, type Benchmark, type Row } from './lib/types.ts';

const pageElements = 20_000;
const paragraphs = 60_000;

export const heavyInput: Benchmark = {
  name: 'heavy',
  async run(ctx) {
    const { rows, add } = rowsFor('heavy');
    const notes: string[] = [];
    const page = `<section>${Array.from({ length: pageElements - 1 }, (_, i) => `<p>Paragraph ${i} of a large page.</p>`).join('')}</section>`;
    const markdown = Array.from({ length: paragraphs }, (_, i) => `Line ${i}.`).join('\n\n');

    ctx.log('heavy: the libraries alone, in this process');
    const purifyMs = timed(() => {
      const tools = createPageTools(new JSDOM('<!doctype html><html><body></body></html>').window as unknown as Window & typeof globalThis);
      tools.sanitize(page);
    });
    const parse5Ms = Math.min(...[1, 2, 3].map(() => timed(() => parseFragment(page))));
    let parsed: ReturnType<typeof parseWholeMarkdown> | null = null;
    // The whole text through markdown-it and prosemirror-markdown, and its block ids (the server cuts prose at its plain paragraphs first, markdown-split.ts).
    const parseMs = timed(() => (parsed = withBlockIds(parseWholeMarkdown(markdown))));
    // The serializer over the whole tree (linear, markdown-output.ts), as docToMarkdown wrote every document before it wrote runs of plain paragraphs as their text.
    const serializeMs = timed(() => serializeMarkdown(serializer, parsed!, { tightLists: false }));

    // A cold read reads the stored state: applies it to a Y.Doc, then writes the Markdown.
    const state = buildInitialState({ kind: 'text', title: 'Long document', markdown });
    const readMs =
      timed(() => {
        const ydoc = new Y.Doc({ gc: false });
        Y.applyUpdate(ydoc, state);
        ydoc.destroy();
      }) + serializeMs;
    const blob = blobFloor(ctx.tempDir('heavy-blob'), state);
    const dataDir = ctx.tempDir('heavy');
    let textId: string | null = null;
    // No built-in agent: the benchmark is the agent that changes the page.
    const server = await launchServer({ kind: 'tandem', dataDir, agent: 'off' });
    try {
      await server.stallMs();
      const idle = await whileAsking(server, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      });
      const idleStallMs = await server.stallMs();
      const pageCase = { case: `page of ${pageElements.toLocaleString('en-US')} elements, ${kib(page)}`, unit: 'ms' as const, better: 'lower' as const };
      const floor = 'one parse5 parse (the floor)';
      const old = `one DOMPurify sanitize over jsdom (the old server's), ${Math.round(purifyMs).toLocaleString('en-US')} ms`;
      ctx.log('heavy: a 20,000-element page');
      try {
        const pageRun = await whileAsking(server, () => pageWork(server, dataDir, page));
        const { result } = pageRun;
        add({ ...pageCase, metric: 'POST /api/docs', tandem: result.create, baseline: parse5Ms, baselineName: `${floor}; ${old}` });
        add({ ...pageCase, metric: 'GET /api/docs/:id, first read', tandem: result.read, baseline: parse5Ms, baselineName: floor });
        add({ ...pageCase, metric: 'GET /api/docs/:id, again (kept per version)', tandem: result.readAgain, baseline: parse5Ms, baselineName: floor });
        add({ ...pageCase, metric: 'agent ops: replace_element', tandem: result.ops, baseline: parse5Ms, baselineName: floor });
        add({ ...pageCase, metric: 'GET /api/runs/:id/preview', tandem: result.preview, baseline: parse5Ms, baselineName: floor });
        add({ ...pageCase, metric: 'POST /api/runs/:id/accept', tandem: result.accept, baseline: parse5Ms, baselineName: floor });
        add({ ...pageCase, metric: "another user's slowest /healthz", tandem: pageRun.slowestHealthMs, baseline: idle.slowestHealthMs, baselineName: 'the same server idle' });
      } catch (error) {
        notes.push(`heavy: the page failed: ${(error as Error).message.slice(0, 300)} (one DOMPurify sanitize over jsdom alone took ${Math.round(purifyMs)} ms here)`);
      }
      notes.push(`heavy: one sanitize of the page in this process: ${Math.round(timed(() => serverPageTools().sanitize(page)))} ms with the server's sanitizer, ${Math.round(purifyMs)} ms with DOMPurify over jsdom.`);
      add({ ...pageCase, metric: "server's longest event-loop stall", tandem: await server.stallMs(), baseline: idleStallMs, baselineName: 'the same server idle, asked /healthz (the cores\' contention)' });

      const textCase = { case: `text of ${paragraphs.toLocaleString('en-US')} paragraphs, ${kib(markdown)}`, unit: 'ms' as const, better: 'lower' as const };
      ctx.log('heavy: a 60,000-paragraph document');
      try {
        const textRun = await whileAsking(server, async () => {
          const created = await request(server, 'POST', '/api/docs', { title: 'Long document', markdown });
          const id = created.body.id;
          const blocks = await request(server, 'GET', `/api/docs/${id}`);
          const asMarkdown = await request(server, 'GET', `/api/docs/${id}/markdown`);
          return { id, create: created.ms, read: blocks.ms, markdown: asMarkdown.ms };
        });
        textId = textRun.result.id;
        add({ ...textCase, metric: 'POST /api/docs', tandem: textRun.result.create, baseline: parseMs, baselineName: 'one markdown-it parse to ProseMirror' });
        add({ ...textCase, metric: 'GET /api/docs/:id, first read', tandem: textRun.result.read, baseline: serializeMs, baselineName: 'one prosemirror-markdown serialize' });
        add({ ...textCase, metric: 'GET /api/docs/:id/markdown', tandem: textRun.result.markdown, baseline: serializeMs, baselineName: 'one prosemirror-markdown serialize' });
        add({ ...textCase, metric: "another user's slowest /healthz", tandem: textRun.slowestHealthMs, baseline: idle.slowestHealthMs, baselineName: 'the same server idle' });
      } catch (error) {
        notes.push(`heavy: the text document failed: ${(error as Error).message.slice(0, 300)}`);
      }
      add({ ...textCase, metric: "server's longest event-loop stall", tandem: await server.stallMs(), baseline: blob.writeMs, baselineName: `one bare better-sqlite3 write of its ${mib(state)} state (the same server idle: ${Math.round(idleStallMs)} ms)` });
      notes.push('heavy: the libraries alone run once in the benchmark\'s own process; the server parses pages and reads text in its work pool (LIMIT10), off its event loop.');
    } finally {
      await server.stop();
    }
    if (textId) await coldTextReads(ctx, dataDir, textId, add, readMs, { readMs: blob.readMs, name: `one bare better-sqlite3 read of its ${mib(state)} state` });
    return { rows, notes };
  },
};

/** The page's life: created, read twice, an instruction on its last paragraph sent, the agent's replace_element, preview, accept. */
async function pageWork(server: ServerHandle, dataDir: string, page: string) {
  const created = await request(server, 'POST', '/api/docs', { title: 'Large page', kind: 'page', html: page });
  const docId = created.body.id;
  const read = await request(server, 'GET', `/api/docs/${docId}`);
  const readAgain = await request(server, 'GET', `/api/docs/${docId}`);
  const target = read.body.elements[read.body.elements.length - 1];
  const instruction = await request(server, 'POST', `/api/docs/${docId}/annotations`, { kind: 'instruction', elementId: target.id, text: 'Make it a heading' });
  const runId = (await request(server, 'POST', `/api/docs/${docId}/runs`)).body.runId;
  const agent = await signToken(openKeyRing(dataDir), { sub: 'bench-agent', name: 'Bench', role: 'agent', doc: docId });
  await request(server, 'POST', `/api/agent/runs/${runId}/claim`, undefined, agent);
  const ops = await request(server, 'POST', `/api/agent/runs/${runId}/ops`, {
    idempotencyKey: 'heading',
    ops: [{ op: 'replace_element', elementId: target.id, html: '<h2>The last paragraph, now a heading</h2>', expectHash: target.hash, instructionId: instruction.body.id }],
  }, agent);
  await request(server, 'POST', `/api/agent/runs/${runId}/complete`, {}, agent);
  const preview = await request(server, 'GET', `/api/runs/${runId}/preview`);
  const accept = await request(server, 'POST', `/api/runs/${runId}/accept`);
  return { create: created.ms, read: read.ms, readAgain: readAgain.ms, ops: ops.ms, preview: preview.ms, accept: accept.ms };
}

/**
 * The text document read again by a server started anew on the same data: nothing derived is
 * kept, so it reads what is stored (shape, merge, ProseMirror, blocks and Markdown), in its pool.
 */
async function coldTextReads(
  ctx: BenchContext,
  dataDir: string,
  id: string,
  add: (row: Omit<Row, 'bench'>) => void,
  readMs: number,
  blobRead: { readMs: number; name: string },
): Promise<void> {
  ctx.log('heavy: the 60,000-paragraph document read by a new server');
  const textCase = { case: `text of ${paragraphs.toLocaleString('en-US')} paragraphs, read by a new server`, unit: 'ms' as const, better: 'lower' as const };
  const server = await launchServer({ kind: 'tandem', dataDir });
  try {
    await server.stallMs();
    const run = await whileAsking(server, async () => {
      const [blocks, asMarkdown] = await Promise.all([request(server, 'GET', `/api/docs/${id}`), request(server, 'GET', `/api/docs/${id}/markdown`)]);
      return { read: blocks.ms, markdown: asMarkdown.ms };
    });
    const floor = 'one Y.applyUpdate of its state + one serialize';
    add({ ...textCase, metric: 'GET /api/docs/:id and …/markdown at once, the slower', tandem: Math.max(run.result.read, run.result.markdown), baseline: readMs, baselineName: floor });
    add({ ...textCase, metric: "another user's slowest /healthz", tandem: run.slowestHealthMs, baseline: null, baselineName: '—' });
    add({ ...textCase, metric: "server's longest event-loop stall", tandem: await server.stallMs(), baseline: blobRead.readMs, baselineName: blobRead.name });
  } finally {
    await server.stop();
  }
}

/**
 * The floor of the SQLite store's stalls for a large document: better-sqlite3 is synchronous, so
 * writing or reading the state blob holds the event loop; the store runs these with the same
 * settings (WAL, `synchronous = NORMAL`). The best of three each.
 */
function blobFloor(dir: string, state: Uint8Array): { writeMs: number; readMs: number } {
  const db = new Database(join(dir, 'floor.sqlite'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE TABLE blobs (name TEXT PRIMARY KEY, data BLOB NOT NULL)');
    const write = db.prepare('INSERT OR REPLACE INTO blobs (name, data) VALUES (?, ?)');
    const read = db.prepare<[string], { data: Buffer }>('SELECT data FROM blobs WHERE name = ?');
    const writeMs = Math.min(...[1, 2, 3].map((i) => timed(() => write.run(`doc${i}`, state))));
    const readMs = Math.min(...[1, 2, 3].map((i) => timed(() => read.get(`doc${i}`))));
    return { writeMs, readMs };
  } finally {
    db.close();
  }
}

function timed(work: () => void): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

const mib = (bytes: Uint8Array) => `${(bytes.length / 2 ** 20).toFixed(1)} MiB`;
const kib = (text: string) => `${Math.round(Buffer.byteLength(text) / 1024).toLocaleString('en-US')} KiB`;

async function request(server: ServerHandle, method: string, path: string, body?: unknown, token = server.token): Promise<{ ms: number; body: any }> {
  const start = performance.now();
  const response = await fetch(`${server.httpUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const ms = performance.now() - start;
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
  return { ms, body: text.startsWith('{') ? JSON.parse(text) : text };
}

/** Runs `work` while another user asks `/healthz` every 20 ms; the slowest answer it got. */
async function whileAsking<T>(server: ServerHandle, work: () => Promise<T>): Promise<{ result: T; slowestHealthMs: number }> {
  let running = true;
  let slowest = 0;
  const asking = (async () => {
    while (running) {
      const start = performance.now();
      await fetch(`${server.httpUrl}/healthz`);
      slowest = Math.max(slowest, performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  let result: T;
  try {
    result = await work();
  } finally {
    running = false;
    await asking;
  }
  return { result, slowestHealthMs: slowest };
}
