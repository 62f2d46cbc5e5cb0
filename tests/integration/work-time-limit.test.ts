import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * LIMIT10's time limit: a work task that runs longer than `limits.workTaskMs` is stopped and its
 * request refused with 422 TOO_COMPLEX, the server answering everyone else meanwhile. The limit
 * is set far below what the import takes, so the refusal comes from the limit alone; without it
 * the import would be created (201).
 */

// An import of 60,000 paragraphs (the largest body the API takes is 1 MiB) takes the pool over a second.
const workTaskMs = 100;
const server = useTestServer({ limits: { workTaskMs } });

const paragraphs = (count: number) => Array.from({ length: count }, (_, i) => `Line ${i}.`).join('\n\n');

describe('the work pool\'s time limit', () => {
  it('[LIMIT10] refuses an import that takes longer than the limit with 422 TOO_COMPLEX, answering others meanwhile, and creates nothing', async () => {
    const before = (await server.api('/api/docs')).body.length;
    const settled: string[] = [];
    const importing = server.api('/api/docs', { method: 'POST', body: { title: 'Long', markdown: paragraphs(60_000) } }).finally(() => settled.push('import'));
    // Another user, while the import is in the pool: answered before the import is refused.
    const health = await fetch(`${server.url}/healthz`);
    settled.push('healthz');
    const viewer = await server.api('/api/docs', { token: server.token('viewer') });
    settled.push('list');
    const refused = await importing;

    expect([health.status, viewer.status]).toEqual([200, 200]);
    expect([refused.status, refused.body.error?.code]).toEqual([422, 'TOO_COMPLEX']);
    expect(refused.body.error.message).toContain(`${workTaskMs / 1000} s`);
    expect(settled).toEqual(['healthz', 'list', 'import']);
    expect((await server.api('/api/docs')).body.length).toBe(before);
  });

  it('[LIMIT10] takes work within the limit after a refusal, on the thread that replaced the stopped one', async () => {
    const long = await server.api('/api/docs', { method: 'POST', body: { title: 'Long', markdown: paragraphs(60_000) } });
    expect([long.status, long.body.error?.code]).toEqual([422, 'TOO_COMPLEX']);
    const short = await server.api('/api/docs', { method: 'POST', body: { title: 'Short', markdown: 'A short document.' } });
    expect(short.status).toBe(201);
    expect((await server.api(`/api/docs/${short.body.id}/markdown`)).body).toBe('A short document.');
  });
});
