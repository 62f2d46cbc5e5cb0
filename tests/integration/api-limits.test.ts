import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/use-test-server.ts';
import { waitFor } from '../helpers/peer.ts';
import { startTestServer } from '../helpers/server.ts';

const server = useTestServer({
  limits: { httpRequests: { burst: 20, perSecond: 0.01 }, docCreations: { burst: 3, perSecond: 0.01 } },
});

describe('API limits per token', () => {
  it('[LIMIT5] answers a flood of requests with 429 RATE_LIMITED and Retry-After, for that token only', async () => {
    const token = server.token('viewer');
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await server.api('/api/docs', { token })).status);
    const refused = await server.api('/api/docs', { token });

    expect(statuses).toEqual(Array(20).fill(200));
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await server.api('/api/docs', { token: server.token('viewer') })).status).toBe(200);
  });

  it('[LIMIT5] refuses creating more documents than docCreations allows, and creates nothing for the refused one', async () => {
    const token = server.token('editor');
    const created: number[] = [];
    for (let i = 0; i < 4; i++) {
      created.push((await server.api('/api/docs', { method: 'POST', token, body: { title: `Flood ${i}` } })).status);
    }
    const listed = await server.api('/api/docs', { token });

    expect(created).toEqual([201, 201, 201, 429]);
    expect(listed.body.filter((doc: { title: string }) => doc.title.startsWith('Flood ')).length).toBe(3);
  });

  it('[LIMIT6] refuses a long poll beyond longPollsPerSubject while the others wait, and admits one after', async () => {
    const own = await startTestServer({ limits: { longPollsPerSubject: 2 } });
    const token = own.token('agent');
    const poll = (wait: number, signal?: AbortSignal) =>
      fetch(`${own.url}/api/agent/runs?state=queued&wait=${wait}`, { headers: { authorization: `Bearer ${token}` }, signal });
    const waiting = new AbortController();
    const polls = [poll(25, waiting.signal), poll(25, waiting.signal)].map((response) => response.catch(() => null));
    try {
      // Both polls are waiting once a third is refused: retry until the server has both.
      let third: Response | undefined;
      await waitFor(async () => {
        third = await poll(0.1);
        return third.status === 429;
      }, 5000);
      expect((await third!.json()).error.code).toBe('RATE_LIMITED');
      expect(third!.headers.get('retry-after')).toBe('1');
    } finally {
      waiting.abort();
      await Promise.all(polls);
    }
    await waitFor(async () => (await poll(0.1)).status === 200, 5000);
    await own.dispose();
  });
});
