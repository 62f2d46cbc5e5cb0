/**
 * 7. Agent API. How soon a waiting long poll (`GET /api/agent/runs?state=queued&wait=S`) answers
 * once a run is sent, how soon a poll answers when a run is already queued, and how long the
 * server takes to close while a poll waits. The integration tests check that these happen
 * before the poll's wait passes; the figures live here. No baseline: nothing else has this API.
 */
import { startServer, type TandemServer } from '../server/index.ts';
import { percentile } from './lib/stats.ts';
import { rowsFor, type Benchmark, type BenchContext } from './lib/types.ts';

interface Api {
  server: TandemServer;
  call(path: string, token: string, method?: string, body?: unknown): Promise<{ status: number; body: any }>;
}

async function open(ctx: BenchContext, label: string): Promise<Api> {
  const server = await startServer({ port: 0, host: '127.0.0.1', dataDir: ctx.tempDir(label), quiet: true, agent: 'off' });
  return {
    server,
    async call(path, token, method = 'GET', body) {
      const response = await fetch(server.url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
  };
}

/** A document with one queued instruction, ready to send; its id. */
async function readyDoc(api: Api): Promise<string> {
  const owner = api.server.ownerToken;
  const doc = (await api.call('/api/docs', owner, 'POST', { title: 'Bench', markdown: 'alpha one' })).body;
  const blockId = (await api.call(`/api/docs/${doc.id}`, owner)).body.blocks[0].id;
  await api.call(`/api/docs/${doc.id}/annotations`, owner, 'POST', { kind: 'instruction', blockId, text: 'uppercase' });
  return doc.id;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

export const agentApi: Benchmark = {
  name: 'agent-api',
  async run(ctx) {
    const { rows, add } = rowsFor('agent-api');
    const samples = ctx.quick ? 10 : 50;
    const wake: number[] = [];
    const queued: number[] = [];
    const api = await open(ctx, 'agent-api');
    try {
      ctx.log(`agent-api: ${samples} long polls woken by a send`);
      for (let i = 0; i < samples; i++) {
        const docId = await readyDoc(api);
        const agent = await api.server.signToken({ sub: `bench-agent-${i}`, name: 'Bench', role: 'agent', doc: docId });
        const poll = api.call('/api/agent/runs?state=queued&wait=10', agent);
        // Figures, not assertions: a pause is enough for the poll to be waiting.
        await settle();
        const sent = performance.now();
        await api.call(`/api/docs/${docId}/runs`, api.server.ownerToken, 'POST');
        await poll;
        wake.push(performance.now() - sent);
        const started = performance.now();
        await api.call('/api/agent/runs?state=queued&wait=10', agent);
        queued.push(performance.now() - started);
      }
    } finally {
      await api.server.close();
    }

    const closes: number[] = [];
    ctx.log('agent-api: closing with a long poll waiting');
    for (let i = 0; i < (ctx.quick ? 3 : 10); i++) {
      const own = await open(ctx, `agent-api-close-${i}`);
      const agent = await own.server.signToken({ sub: 'bench-agent', name: 'Bench', role: 'agent' });
      const poll = own.call('/api/agent/runs?state=queued&wait=30', agent);
      await settle();
      const started = performance.now();
      await own.server.close();
      await poll;
      closes.push(performance.now() - started);
    }

    const row = (caseName: string, metric: string, value: number) =>
      add({ case: caseName, metric, unit: 'ms', better: 'lower', tandem: value, baseline: null, baselineName: '—' });
    row('long poll, run sent while it waits', 'send answered → poll answered, median', percentile(wake, 50));
    row('long poll, run sent while it waits', 'send answered → poll answered, p95', percentile(wake, 95));
    row('long poll, run already queued', 'answer, median', percentile(queued, 50));
    row('server close, one long poll waiting', 'close and poll answered, median', percentile(closes, 50));
    return { rows };
  },
};
