/**
 * 5. Browser. In Chromium: the time from navigation to an editable 1 MB document (its last
 * paragraph rendered in an element `aria-label="Document"` with contenteditable=true), first
 * served by the server and then from IndexedDB with the server down; and the size of the
 * client's JavaScript. Tandem's built client against a minimal editor on the same libraries
 * (bench/minimal-editor), which loads the same document from the same Tandem server; and the time
 * from a keypress at the end of that document to the frame that shows it, in both. The size of
 * the JavaScript is also compared with a collaborative Tiptap editor with the same features
 * (bench/tiptap-editor), the editor people would otherwise build on.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext } from 'playwright-core';
import { docOfStateSize, seedTandemStore } from './lib/docs.ts';
import { launchServer } from './lib/servers.ts';
import { serveStatic } from './lib/static-server.ts';
import { percentile } from './lib/stats.ts';
import { formatBytes } from './lib/table.ts';
import { rowsFor, type Benchmark } from './lib/types.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const baselineName = 'minimal y-prosemirror editor';
const tiptapName = `Tiptap ${tiptapVersion()} collaborative editor`;
const marker = 'Tandem-bench-end-of-document';

export const browser: Benchmark = {
  name: 'browser',
  async run(ctx) {
    if (!existsSync(chromiumPath)) return { rows: [], skipped: `browser: no Chromium at ${chromiumPath}; skipped` };
    const { rows, add } = rowsFor('browser');
    const notes: string[] = [];

    ctx.log('browser: building the client, the baseline editor and the Tiptap editor');
    const tandemDist = ctx.tempDir('dist');
    const minimalDist = ctx.tempDir('minimal');
    const tiptapDist = ctx.tempDir('tiptap');
    await viteBuild(ctx.repoRoot, ['--outDir', tandemDist, '--emptyOutDir']);
    await viteBuild(ctx.repoRoot, ['--config', 'bench/minimal-editor/vite.config.ts', '--outDir', minimalDist]);
    await viteBuild(ctx.repoRoot, ['--config', 'bench/tiptap-editor/vite.config.ts', '--outDir', tiptapDist]);
    const tandemJs = scriptSize(tandemDist);
    const minimalJs = scriptSize(minimalDist);
    const size = { case: 'all emitted .js files', unit: 'bytes' as const, better: 'lower' as const, baselineName };
    add({ ...size, metric: 'client JavaScript, raw', tandem: tandemJs.raw, baseline: minimalJs.raw });
    add({ ...size, metric: 'client JavaScript, gzip', tandem: tandemJs.gzip, baseline: minimalJs.gzip });
    const tandemFirst = pageScriptSize(tandemDist);
    const minimalFirst = pageScriptSize(minimalDist);
    const first = { case: 'loaded with the page', unit: 'bytes' as const, better: 'lower' as const, baselineName };
    add({ ...first, metric: 'client JavaScript, raw', tandem: tandemFirst.raw, baseline: minimalFirst.raw });
    add({ ...first, metric: 'client JavaScript, gzip', tandem: tandemFirst.gzip, baseline: minimalFirst.gzip });
    const tiptapFirst = pageScriptSize(tiptapDist);
    const peer = { ...first, baselineName: tiptapName };
    add({ ...peer, metric: 'client JavaScript, raw', tandem: tandemFirst.raw, baseline: tiptapFirst.raw });
    add({ ...peer, metric: 'client JavaScript, gzip', tandem: tandemFirst.gzip, baseline: tiptapFirst.gzip });

    const doc = docOfStateSize(1_000_000, marker);
    const dataDir = ctx.tempDir('browser');
    const [docId] = await seedTandemStore(dataDir, [doc.state]);
    const server = await launchServer({ kind: 'tandem', dataDir, distDir: tandemDist });
    const minimal = await serveStatic(minimalDist);
    const { chromium } = await import('playwright-core');
    const chromiumBrowser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    const runs = ctx.quick ? 1 : 3;
    const times = { tandemOnline: [] as number[], minimalOnline: [] as number[], tandemOffline: [] as number[], minimalOffline: [] as number[] };
    const keypress = { tandem: [] as number[], minimal: [] as number[] };
    const contexts: BrowserContext[] = [];
    try {
      const tandemUrl = `${server.httpUrl}/d/${docId}?token=${encodeURIComponent(server.token)}`;
      const minimalUrl = `${minimal.url}/?${new URLSearchParams({ ws: server.wsUrl, doc: docId, token: server.token })}`;
      const visits: { context: BrowserContext; url: string; app: 'tandem' | 'minimal' }[] = [];
      for (let run = 0; run < runs; run++) {
        for (const [app, url] of [['tandem', tandemUrl], ['minimal', minimalUrl]] as const) {
          ctx.log(`browser: ${app}, first visit with the server up (${run + 1} of ${runs})`);
          const context = await chromiumBrowser.newContext({ viewport: { width: 1100, height: 800 } });
          contexts.push(context);
          const page = await context.newPage();
          (app === 'tandem' ? times.tandemOnline : times.minimalOnline).push(await openUntilEditable(page, url));
          ctx.log(`browser: ${app}, typing at the end of the document (${run + 1} of ${runs})`);
          keypress[app].push(...(await keypressToPaint(page, ctx.quick ? 20 : 40)));
          const ready = app === 'tandem' ? 'html[data-offline-ready] tandem-doc-view[data-saved-locally="true"]' : 'html[data-saved-locally]';
          await waitForOffline(page, app, ready).catch((error) => notes.push(`browser: ${app}: ${error.message}`));
          await page.close();
          visits.push({ context, url, app });
        }
      }
      ctx.log('browser: stopping the server');
      await server.stop();
      for (const { context, url, app } of visits) {
        ctx.log(`browser: ${app}, visit with the server down`);
        const page = await context.newPage();
        (app === 'tandem' ? times.tandemOffline : times.minimalOffline).push(await openUntilEditable(page, url));
        await page.close();
      }
    } finally {
      for (const context of contexts) await context.close().catch(() => {});
      await chromiumBrowser.close();
      await minimal.close();
      await server.stop();
    }

    const label = `${formatBytes(doc.state.byteLength)} doc, ${doc.paragraphs.toLocaleString('en-US')} paragraphs`;
    const load = { case: label, unit: 'ms' as const, better: 'lower' as const, baselineName };
    add({ ...load, metric: 'navigation → editable, server up', tandem: percentile(times.tandemOnline, 50), baseline: percentile(times.minimalOnline, 50) });
    add({ ...load, metric: 'navigation → editable, server down', tandem: percentile(times.tandemOffline, 50), baseline: percentile(times.minimalOffline, 50) });
    const typing = { case: label, unit: 'ms' as const, better: 'lower' as const, baselineName };
    add({ ...typing, metric: 'keypress → painted, median', tandem: percentile(keypress.tandem, 50), baseline: percentile(keypress.minimal, 50) });
    add({ ...typing, metric: 'keypress → painted, p95', tandem: percentile(keypress.tandem, 95), baseline: percentile(keypress.minimal, 95) });
    notes.push('browser: keypress → painted is the page\'s own clock from a key\'s keydown to the task after the next animation frame that follows the editor\'s DOM change (the frame is painted then), one key every 60 ms at the end of the document.');
    notes.push('browser: "server down" is a second visit on the same browser profile: Tandem from its service worker and IndexedDB; the baseline page from its own static server (still up) and IndexedDB.');
    return { rows, notes };
  },
};

/** The installed Tiptap version the peer editor is built with. */
function tiptapVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../node_modules/@tiptap/core/package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

/** Runs Vite from the repository root with `args` (after `build`), in its own process. */
function viteBuild(repoRoot: string, args: string[]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [resolve(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn', ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolvePromise() : reject(new Error(`vite build ${args.join(' ')} failed (${code}): ${errors.slice(-2000)}`))));
  });
}

/** Every `.js` file Vite emitted (source maps aside), raw and gzipped one by one. */
function scriptSize(dir: string): { raw: number; gzip: number } {
  const files: string[] = [];
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.js')) files.push(path);
    }
  };
  walk(dir);
  return sizeOf(files);
}

/**
 * The scripts `index.html` loads before anything else (its module scripts and module
 * preloads): what the page downloads to open a document; chunks loaded on demand come after.
 */
function pageScriptSize(dir: string): { raw: number; gzip: number } {
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  const files = [...html.matchAll(/<(?:script type="module"[^>]*src|link rel="modulepreload"[^>]*href)="([^"]+\.js)"/g)].map((match) =>
    join(dir, match[1].replace(/^\.?\//, '')),
  );
  return sizeOf(files);
}

function sizeOf(files: readonly string[]): { raw: number; gzip: number } {
  let raw = 0;
  let gzip = 0;
  for (const file of files) {
    const bytes = readFileSync(file);
    raw += bytes.byteLength;
    gzip += gzipSync(bytes, { level: 9 }).byteLength;
  }
  return { raw, gzip };
}

/**
 * Navigates and returns the page's own clock (milliseconds since the navigation started) at the
 * first animation frame in which the document is editable and its last paragraph is rendered.
 */
async function openUntilEditable(page: Awaited<ReturnType<BrowserContext['newPage']>>, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit', timeout: 60_000 });
  const handle = await page.waitForFunction(
    (mark) => {
      const editor = document.querySelector('[aria-label="Document"]');
      if (!editor || editor.getAttribute('contenteditable') !== 'true') return false;
      return editor.lastElementChild?.textContent?.includes(mark) ? performance.now() : false;
    },
    marker,
    { polling: 'raf', timeout: 60_000 },
  );
  return (await handle.jsonValue()) as number;
}

/**
 * Types `count` letters at the end of the open document, one every 60 ms, and returns for each
 * the time from its keydown to the task after the first animation frame that follows the
 * editor's DOM change for it.
 */
async function keypressToPaint(page: Awaited<ReturnType<BrowserContext['newPage']>>, count: number): Promise<number[]> {
  const editor = page.locator('[aria-label="Document"]');
  await editor.focus();
  await page.keyboard.press('Control+End');
  // No named functions inside: the page runs this source as it is, without bundler helpers.
  await editor.evaluate((root) => {
    const probe = { pressedAt: 0, times: [] as number[] };
    (window as unknown as { keypressProbe: typeof probe }).keypressProbe = probe;
    document.addEventListener('keydown', () => (probe.pressedAt = performance.now()), true);
    new MutationObserver(() => {
      const pressedAt = probe.pressedAt;
      if (pressedAt === 0) return;
      probe.pressedAt = 0;
      requestAnimationFrame(() => setTimeout(() => probe.times.push(performance.now() - pressedAt), 0));
    }).observe(root, { childList: true, characterData: true, subtree: true });
  });
  for (let i = 0; i < count; i++) {
    await page.keyboard.press(String.fromCharCode(97 + (i % 26)));
    await page.waitForTimeout(60);
  }
  await page.waitForFunction((expected) => (window as unknown as { keypressProbe: { times: number[] } }).keypressProbe.times.length >= expected, count);
  return page.evaluate(() => (window as unknown as { keypressProbe: { times: number[] } }).keypressProbe.times);
}

/** Waits until the page can open the document again without the server. */
async function waitForOffline(page: Awaited<ReturnType<BrowserContext['newPage']>>, app: string, selector: string): Promise<void> {
  for (const part of app === 'tandem' ? ['html[data-offline-ready]', 'tandem-doc-view[data-saved-locally="true"]'] : [selector]) {
    await page.locator(part).waitFor({ state: 'attached', timeout: 30_000 });
  }
}

export type { Browser };
