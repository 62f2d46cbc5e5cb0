/**
 * 11. Agent run. What Tandem itself adds to a run of the model agent (agents/model/model-agent.ts
 * with the OpenAI provider) when the model answers at once: a document of 10 blocks, 10
 * instructions sent as one run, and a scripted OpenAI-compatible model on 127.0.0.1
 * (tests/helpers/fake-openai.ts) that reads the document and then answers each instruction with
 * one `replace_block` call, one call a turn, before its summary (11 tool calls, 12 model calls).
 *
 * - Tandem's own time per tool call: the run's wall time, from Send to the agent's finish
 *   request answered, less the fake model's own request handling (first byte of a request to
 *   the last of its answer), divided by the tool calls; the fake model's time is the baseline.
 * - Review visible: from the model's last answer (its summary), and from the agent's finish
 *   request reaching the server, to a peer on the document's `<id>/runs` mirror (a browser
 *   tab's WebSocket) holding the run in `review`, beside a plain Yjs update sent by one peer
 *   through the same server to another.
 *
 * Everything runs in this one process (server, agent, model, peers), each time taken from the
 * same clock by `node:diagnostics_channel`'s HTTP server events. With `--cpu-prof` the process
 * writes one V8 CPU profile of the measured runs into `bench/profiles/agent-run/`.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Session } from 'node:inspector/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type TandemServer } from '../server/index.ts';
import { startModelAgent, modelAgentName } from '../agents/model/model-agent.ts';
import { openAiProvider } from '../agents/model/openai-provider.ts';
import { docName } from '../shared/model/doc-layout.ts';
import { readRunRecords } from '../shared/protocol/run-record.ts';
import { startFakeOpenAi, type FakeStep } from '../tests/helpers/fake-openai.ts';
import { appendToBlock } from '../tests/helpers/doc-builder.ts';
import { connectPeer, type BenchPeer } from './lib/peers.ts';
import { percentile } from './lib/stats.ts';
import { rowsFor, type Benchmark, type BenchContext } from './lib/types.ts';

const blocks = 10;
const unlimited = { burst: 1e9, perSecond: 1e9 };

interface Api {
  server: TandemServer;
  call(path: string, method?: string, body?: unknown): Promise<{ status: number; body: any }>;
}

async function open(dataDir: string): Promise<Api> {
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    quiet: true,
    agent: 'off',
    limits: { httpRequests: unlimited, docCreations: unlimited, socketMessages: unlimited },
  });
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

/** HTTP requests of this process, timed: when each began (headers read) and when its answer was sent, by port and path. */
function timeHttp() {
  const started = new WeakMap<IncomingMessage, number>();
  const listeners: { port: number; path: RegExp; onStart?(at: number): void; onFinish?(startedAt: number, at: number): void }[] = [];
  const portOf = (request: IncomingMessage) => (request.socket.address() as AddressInfo).port;
  const onStart = (message: unknown) => {
    const { request } = message as { request: IncomingMessage };
    const at = performance.now();
    started.set(request, at);
    for (const listener of listeners) if (listener.port === portOf(request) && listener.path.test(request.url ?? '')) listener.onStart?.(at);
  };
  const onFinish = (message: unknown) => {
    const { request } = message as { request: IncomingMessage; response: ServerResponse };
    const at = performance.now();
    const begun = started.get(request);
    if (begun === undefined) return;
    for (const listener of listeners) if (listener.port === portOf(request) && listener.path.test(request.url ?? '')) listener.onFinish?.(begun, at);
  };
  subscribe('http.server.request.start', onStart);
  subscribe('http.server.response.finish', onFinish);
  return {
    listen(listener: (typeof listeners)[number]) {
      listeners.push(listener);
      return () => listeners.splice(listeners.indexOf(listener), 1);
    },
    close() {
      unsubscribe('http.server.request.start', onStart);
      unsubscribe('http.server.response.finish', onFinish);
    },
  };
}

/** Resolves with the time `peer`'s replica of a runs mirror first holds `runId` in `review`. */
function seenInReview(peer: BenchPeer, runId: string, timeoutMs = 30_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const run = readRunRecords(peer.ydoc).runs.find((candidate) => candidate.runId === runId);
      if (run?.state !== 'review') return false;
      const at = performance.now();
      peer.ydoc.off('update', check);
      clearTimeout(timer);
      resolve(at);
      return true;
    };
    const timer = setTimeout(() => {
      peer.ydoc.off('update', check);
      reject(new Error(`run ${runId} was not in review on the mirror within ${timeoutMs} ms`));
    }, timeoutMs);
    if (!check()) peer.ydoc.on('update', check);
  });
}

/** The time from a peer's local update to another peer of the same document receiving it. */
async function yjsRoundTrip(writer: BenchPeer, reader: BenchPeer, text: string): Promise<number> {
  const received = new Promise<number>((resolve) => {
    const onUpdate = (_update: Uint8Array, origin: unknown) => {
      if (origin === null) return;
      reader.ydoc.off('update', onUpdate);
      resolve(performance.now());
    };
    reader.ydoc.on('update', onUpdate);
  });
  const sent = performance.now();
  appendToBlock(writer.ydoc, 0, text);
  return (await received) - sent;
}

async function profiled<T>(ctx: BenchContext, body: () => Promise<T>): Promise<T> {
  const dir = process.env.TANDEM_BENCH_CPU_PROF;
  if (!dir) return body();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await body();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    const out = join(dir, 'agent-run');
    mkdirSync(out, { recursive: true });
    const file = join(out, `agent-run-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    ctx.log(`agent-run: wrote ${file}`);
  }
}

export const agentRun: Benchmark = {
  name: 'agent-run',
  async run(ctx) {
    const { rows, add } = rowsFor('agent-run');
    const samples = ctx.quick ? 3 : 9;
    const warmups = 1;
    const api = await open(ctx.tempDir('agent-run'));
    const http = timeHttp();
    const script: FakeStep[] = [];
    const model = await startFakeOpenAi(script);
    const modelPort = Number(new URL(model.baseURL).port);
    let modelMs = 0;
    let lastModelAnswerAt = 0;
    const stopModelTiming = http.listen({
      port: modelPort,
      path: /^\/v1\/chat\/completions/,
      onFinish: (begun, at) => {
        modelMs += at - begun;
        lastModelAnswerAt = at;
      },
    });
    const token = await api.server.signToken({ sub: 'model-agent', name: modelAgentName, role: 'agent' });
    const provider = openAiProvider({ baseURL: model.baseURL, apiKey: 'sk-bench', model: 'fake-model', callTimeoutMs: 30_000 });
    const log: string[] = [];
    const agent = startModelAgent({ url: api.server.url, token, provider, pollSeconds: 20, log: (line) => log.push(line) });

    const baselineDoc = (await api.call('/api/docs', 'POST', { title: 'Baseline', markdown: 'alpha' })).body.id as string;
    const wsUrl = `ws://127.0.0.1:${api.server.port}/collab`;
    const writer = connectPeer({ wsUrl, name: docName(baselineDoc), token: api.server.ownerToken });
    const reader = connectPeer({ wsUrl, name: docName(baselineDoc), token: api.server.ownerToken });
    await Promise.all([writer.synced, reader.synced]);

    const perCall: number[] = [];
    const modelPerCall: number[] = [];
    const review: number[] = [];
    const fromModel: number[] = [];
    const yjs: number[] = [];
    let toolCalls = 0;
    try {
      await profiled(ctx, async () => {
        for (let sample = 0; sample < warmups + samples; sample++) {
          const markdown = Array.from({ length: blocks }, (_, index) => `Paragraph ${index + 1} of the bench document, plain words.`).join('\n\n');
          const docId = (await api.call('/api/docs', 'POST', { title: `Agent run ${sample}`, markdown })).body.id as string;
          const docBlocks = (await api.call(`/api/docs/${docId}`)).body.blocks as { id: string }[];
          const instructionIds: string[] = [];
          for (const [index, block] of docBlocks.entries()) {
            const note = await api.call(`/api/docs/${docId}/annotations`, 'POST', { kind: 'instruction', blockId: block.id, text: `Rewrite paragraph ${index + 1} in capitals` });
            if (note.status !== 201) throw new Error(`the instruction was refused: ${JSON.stringify(note.body)}`);
            instructionIds.push(note.body.id);
          }
          script.push({ toolCalls: [{ name: 'read_document', arguments: {} }] });
          for (const [index, instructionId] of instructionIds.entries()) {
            script.push({ toolCalls: [{ name: 'replace_block', arguments: { instructionId, blockId: docBlocks[index].id, markdown: `PARAGRAPH ${index + 1} OF THE BENCH DOCUMENT.` } }] });
          }
          script.push({ text: 'Rewrote every paragraph in capitals.' });
          const calls = 1 + instructionIds.length;

          const watcher = connectPeer({ wsUrl, name: docName(docId, 'runs'), token: api.server.ownerToken });
          await watcher.synced;
          let finishAt = 0;
          let finishedAt = 0;
          const stopFinishTiming = http.listen({
            port: api.server.port,
            path: /^\/api\/agent\/runs\/[^/]+\/complete$/,
            onStart: (at) => (finishAt = at),
            onFinish: (_begun, at) => (finishedAt = at),
          });
          try {
            modelMs = 0;
            const sentAt = performance.now();
            const sent = await api.call(`/api/docs/${docId}/runs`, 'POST');
            if (sent.status !== 201) throw new Error(`Send was refused: ${JSON.stringify(sent.body)}`);
            const visibleAt = await seenInReview(watcher, sent.body.runId);
            // The finish request's answer may go out just after the mirror's update.
            while (finishedAt === 0) await new Promise((resolve) => setImmediate(resolve));
            const run = await api.call(`/api/runs/${sent.body.runId}`);
            const changed = run.body.items.filter((item: { outcome: string }) => item.outcome === 'changed').length;
            if (changed !== instructionIds.length) throw new Error(`the run changed ${changed} of ${instructionIds.length} blocks: ${log.slice(-3).join(' · ')}`);
            if (sample < warmups) continue;
            toolCalls = calls;
            perCall.push((finishedAt - sentAt - modelMs) / calls);
            modelPerCall.push(modelMs / calls);
            review.push(visibleAt - finishAt);
            fromModel.push(visibleAt - lastModelAnswerAt);
            yjs.push(await yjsRoundTrip(writer, reader, ` ${sample}`));
            ctx.log(`agent-run: run ${sample - warmups + 1}/${samples}: ${((finishedAt - sentAt - modelMs) / calls).toFixed(1)} ms a tool call, review visible ${(visibleAt - finishAt).toFixed(1)} ms after the finish request, ${(visibleAt - lastModelAnswerAt).toFixed(1)} ms after the model's last answer`);
          } finally {
            stopFinishTiming();
            watcher.destroy();
          }
        }
      });
    } finally {
      writer.destroy();
      reader.destroy();
      stopModelTiming();
      http.close();
      await agent.stop();
      await model.close();
      await api.server.close();
    }
    const caseName = `${blocks} blocks, ${blocks} instructions, instant model`;
    add({ case: caseName, metric: "Tandem's time per tool call, median", unit: 'ms', better: 'lower', tandem: percentile(perCall, 50), baseline: percentile(modelPerCall, 50), baselineName: "the fake model's own time per call" });
    add({ case: caseName, metric: "model's last answer → review on the runs mirror, median", unit: 'ms', better: 'lower', tandem: percentile(fromModel, 50), baseline: percentile(yjs, 50), baselineName: 'a Yjs update, peer to peer' });
    add({ case: caseName, metric: 'finish request → review on the runs mirror, median', unit: 'ms', better: 'lower', tandem: percentile(review, 50), baseline: percentile(yjs, 50), baselineName: 'a Yjs update, peer to peer' });
    return {
      rows,
      notes: [`agent-run: ${samples} runs after ${warmups} not counted, ${toolCalls} tool calls each (read_document, then one replace_block a model turn); server, agent, model and peers share this process.`],
    };
  },
};
