import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/use-test-server.ts';
import { useBrowser, waitForOfflineReady } from '../helpers/browser.ts';

// A copy of the build that the test can release a new version over.
const distDir = mkdtempSync(join(tmpdir(), 'tandem-release-'));
cpSync(join(import.meta.dirname, '..', '..', 'dist'), distDir, { recursive: true });
afterAll(() => rmSync(distDir, { recursive: true, force: true }));

const server = useTestServer({ distDir });
const people = useBrowser(server);

const buildMark = (page: import('playwright-core').Page) => page.evaluate(() => document.querySelector('meta[name="tandem-test-build"]')?.getAttribute('content') ?? null);

describe('the app shell after a release', () => {
  it('[VER4] is the new build on the next load, though a service worker of the old one controls the page', async () => {
    const person = await people.open('/', server.token('editor'));
    const { page } = person;
    await waitForOfflineReady(page);
    expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    expect(await buildMark(page)).toBeNull();

    // The release: a new index.html and a new service worker.
    const index = join(distDir, 'index.html');
    writeFileSync(index, readFileSync(index, 'utf8').replace('<head>', '<head><meta name="tandem-test-build" content="2">'));
    writeFileSync(join(distDir, 'sw.js'), readFileSync(join(distDir, 'sw.js'), 'utf8') + '\n// build 2\n');

    await page.reload();
    await expect.poll(() => buildMark(page), { timeout: 15_000 }).toBe('2');
    await page.getByRole('button', { name: 'New document' }).waitFor();
  });
});
