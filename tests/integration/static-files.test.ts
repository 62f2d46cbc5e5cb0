import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const indexHtml = '<!doctype html><title>Tandem</title>';
let distDir: string;
let server: TestServer;

beforeAll(async () => {
  distDir = mkdtempSync(join(tmpdir(), 'tandem-dist-'));
  mkdirSync(join(distDir, 'assets'));
  writeFileSync(join(distDir, 'index.html'), indexHtml);
  writeFileSync(join(distDir, 'sw.js'), 'self.addEventListener("fetch", () => {});');
  writeFileSync(join(distDir, 'assets', 'index-a1b2c3.js'), 'console.log(1);');
  writeFileSync(join(distDir, 'assets', 'index-a1b2c3.css'), 'body{}');
  writeFileSync(join(distDir, 'manifest.webmanifest'), '{}');
  server = await startTestServer({ distDir });
});
afterAll(async () => {
  await server.dispose();
  rmSync(distDir, { recursive: true, force: true });
});

const get = (path: string, method = 'GET') => server.api(path, { token: null, method });

describe('the built client', () => {
  it('serves index.html at / without caching it', async () => {
    const response = await get('/');
    expect(response.status).toBe(200);
    expect(response.body).toBe(indexHtml);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
  });

  it('serves index.html for an app route such as /d/<id>', async () => {
    const response = await get('/d/abc123');
    expect(response).toMatchObject({ status: 200, body: indexHtml });
  });

  it('serves the service worker with a script type and without caching it', async () => {
    const response = await get('/sw.js');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
  });

  it('lets hashed assets be cached for good', async () => {
    const script = await get('/assets/index-a1b2c3.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const style = await get('/assets/index-a1b2c3.css');
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await get('/manifest.webmanifest')).headers.get('content-type')).toBe('application/manifest+json; charset=utf-8');
  });

  it('answers 404 for a missing asset rather than the app', async () => {
    expect((await get('/assets/missing-123.js')).status).toBe(404);
    expect((await get('/favicon.ico')).status).toBe(404);
  });

  it('never serves a file outside the build', async () => {
    for (const path of ['/../../../../etc/passwd', '/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd', '/..%2f..%2f..%2f..%2fetc/passwd']) {
      const body = await new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: server.port, path, agent: false }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.end();
      });
      expect(body).not.toContain('root:');
    }
  });

  it('answers HEAD without a body and other methods with 405', async () => {
    const head = await get('/', 'HEAD');
    expect(head).toMatchObject({ status: 200, body: '' });
    expect((await get('/', 'POST')).status).toBe(405);
  });

  it('refuses WebSocket upgrades outside /collab', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}/elsewhere`);
    const outcome = await new Promise<string>((resolve) => {
      socket.on('unexpected-response', (_req, res) => resolve(`status ${res.statusCode}`));
      socket.on('open', () => resolve('open'));
      socket.on('error', () => resolve('error'));
    });
    socket.terminate();
    expect(outcome).toBe('status 404');
  });
});

describe('without a build', () => {
  it('answers 503 saying how to build the client', async () => {
    const bare = await startTestServer({ distDir: join(tmpdir(), 'tandem-no-such-dist') });
    try {
      const response = await bare.api('/', { token: null });
      expect(response.status).toBe(503);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(response.body).toContain('npm run build');
      expect((await bare.api('/healthz', { token: null })).status).toBe(200);
    } finally {
      await bare.dispose();
    }
  });
});
