import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/* The headers of every reply, the served build, and the modes of the data directory. */

const distDir = fileURLToPath(new URL('../../dist', import.meta.url));
const server = useTestServer();

function builtFiles(dir = distDir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? builtFiles(join(dir, entry.name)) : [relative(distDir, join(dir, entry.name))],
  );
}

function scriptAsset(): string {
  const asset = builtFiles().find((file) => file.startsWith('assets/') && file.endsWith('.js'));
  if (!asset) throw new Error('No build in dist/: run `npx vite build` first.');
  return '/' + asset;
}

function directives(policy: string | null): Map<string, string> {
  return new Map((policy ?? '').split(';').map((part) => {
    const [name, ...values] = part.trim().split(/\s+/);
    return [name, values.join(' ')] as [string, string];
  }));
}

describe('every HTTP reply', () => {
  const requests: [string, { path: string; method?: string; token?: string | null; body?: unknown }, number][] = [
    ['the app', { path: '/' }, 200],
    ['an app route', { path: '/d/abc' }, 200],
    ['a static asset', { path: 'ASSET' }, 200],
    ['the service worker', { path: '/sw.js' }, 200],
    ['/healthz', { path: '/healthz' }, 200],
    ['an API reply', { path: '/api/docs' }, 200],
    ['an API refusal without a token', { path: '/api/docs', token: null }, 401],
    ['an API error for a bad body', { path: '/api/docs', method: 'POST', body: '{not json' }, 400],
    ['an API 404', { path: '/api/docs/missing-doc' }, 404],
    ['a static 404', { path: '/assets/missing.js' }, 404],
    ['a static 405', { path: '/', method: 'POST' }, 405],
  ];

  it.each(requests)('carries the CSP, Referrer-Policy and nosniff on %s', async (_name, request, status) => {
    const path = request.path === 'ASSET' ? scriptAsset() : request.path;
    const response = await server.api(path, { method: request.method, token: request.token, body: request.body });
    expect(response.status).toBe(status);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const policy = directives(response.headers.get('content-security-policy'));
    expect(policy.get('script-src')).toBe("'self'");
    expect(policy.get('connect-src')).toBe("'self'");
    expect(policy.get('object-src')).toBe("'none'");
    expect(policy.get('base-uri')).toBe("'none'");
    expect(policy.get('frame-ancestors')).toBe("'none'");
    expect(policy.get('default-src')).toBe("'self'");
    // https: for the images of web pages (PAGE9), no wider: never http: nor *.
    expect(policy.get('img-src')).toBe("'self' data: blob: https:");
  });
});

describe('the served build', () => {
  it('holds no source maps and no inline script', () => {
    const files = builtFiles();
    expect(files).toContain('index.html');
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    for (const file of files.filter((name) => name.endsWith('.js'))) {
      expect(readFileSync(join(distDir, file), 'utf8'), file).not.toContain('sourceMappingURL');
    }
    const html = readFileSync(join(distDir, 'index.html'), 'utf8');
    expect(html.match(/<script\b[^>]*>/g)?.every((tag) => / src=/.test(tag))).toBe(true);
    expect(html).not.toMatch(/<style\b|\son[a-z]+=/i);
  });

  it('answers 404 for the source map of an asset', async () => {
    const response = await server.api(`${scriptAsset()}.map`, { token: null });
    expect(response.status).toBe(404);
  });
});

describe('the data directory', () => {
  const mode = (path: string) => statSync(path).mode & 0o777;
  /** The database files a server keeps in its data directory: none when it runs on PostgreSQL (TANDEM_TEST_STORE=postgres). */
  const databaseFiles = (server: { databaseUrl: string | null }, files: string[]) => (server.databaseUrl === null ? files : []);

  it('is created 0700, and every file in it is 0600 once the server has written a document', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'tandem-private-'));
    const dataDir = join(parent, 'new', 'data');
    try {
      const started = await startTestServer({ dataDir });
      try {
        await started.createDoc('Private', 'Some text.');
        expect(mode(dataDir)).toBe(0o700);
        const files = readdirSync(dataDir);
        expect(files).toEqual(expect.arrayContaining(['secret', ...databaseFiles(started, ['tandem.sqlite', 'tandem.sqlite-wal', 'tandem.sqlite-shm'])]));
        for (const file of files) expect([file, mode(join(dataDir, file))]).toEqual([file, 0o600]);
      } finally {
        await started.stop();
      }
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('tightens files left readable by others, and a directory that holds only its own files', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tandem-loose-'));
    try {
      const first = await startTestServer({ dataDir });
      await first.createDoc('Loose', 'Text.');
      await first.stop();
      chmodSync(dataDir, 0o755);
      for (const file of readdirSync(dataDir)) chmodSync(join(dataDir, file), 0o644);
      expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(['secret', ...databaseFiles(first, ['tandem.sqlite'])]));

      const second = await startTestServer({ dataDir });
      try {
        expect(mode(dataDir)).toBe(0o700);
        for (const file of readdirSync(dataDir)) expect([file, mode(join(dataDir, file))]).toEqual([file, 0o600]);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('leaves the mode of a directory that holds other things too (DATA_DIR may be shared)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tandem-shared-'));
    try {
      chmodSync(dataDir, 0o755);
      writeFileSync(join(dataDir, 'notes.txt'), 'not Tandem’s');
      const started = await startTestServer({ dataDir });
      try {
        await started.createDoc('Shared', 'Text.');
        expect(mode(dataDir)).toBe(0o755);
        for (const file of databaseFiles(started, ['tandem.sqlite'])) expect(mode(join(dataDir, file))).toBe(0o600);
        expect(mode(join(dataDir, 'secret'))).toBe(0o600);
      } finally {
        await started.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
