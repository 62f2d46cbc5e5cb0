import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { reviewPanel, useBrowser } from '../helpers/browser.ts';
import { agentApi } from '../helpers/runs.ts';
import { byTag, createPage, instructElement } from '../helpers/pages.ts';
import { xssCorpus } from '../helpers/xss-corpus.ts';

/*
 * The XSS corpus (shared/PROTOCOL.md PAGE2, PAGE9): scripts, event handlers, `javascript:` and
 * `data:` URLs, SVG, `srcdoc`, CSS expressions, mutation XSS, in a created page and in a run's
 * candidate (replace_element, set_attribute), shown in the app and clicked through: none runs.
 * Every payload calls the binding `xssHit` (reachable from every frame of the context); the
 * positive control shows the same payloads, unsanitized, in a plain page, where they do run.
 */

const server = useTestServer();
const people = useBrowser(server);

const hit = (name: string) => `xssHit('${name}')`;
const corpus = xssCorpus(hit).join('\n');

/** Counts the calls of `xssHit` in every page and frame of `context`. */
async function countHits(context: BrowserContext): Promise<string[]> {
  const hits: string[] = [];
  await context.exposeBinding('xssHit', (_source, name: string) => void hits.push(name));
  return hits;
}

const frame = (page: Page) => page.frameLocator('iframe[title="Page"]');

/**
 * What in the frame's DOM could run, were scripts allowed: script-like elements, event
 * handlers, script and data URLs (images aside), srcdoc. The app's own Content-Security-Policy,
 * which a srcdoc frame inherits, would stop inline script even without the page's defences;
 * this checks those defences (the sanitizers) on their own.
 */
async function unsafeInFrame(page: Page): Promise<string[]> {
  const handle = await page.locator('iframe[title="Page"]').elementHandle();
  const content = await handle!.contentFrame();
  return content!.evaluate(() => {
    const found: string[] = [];
    for (const element of Array.from(document.body.querySelectorAll('*'))) {
      if (/^(script|iframe|object|embed|frame|meta|base|form)$/i.test(element.localName)) found.push(element.localName);
      for (const attribute of Array.from(element.attributes)) {
        if (/^on/i.test(attribute.name) || attribute.name === 'srcdoc' || attribute.name === 'formaction') found.push(attribute.name);
        if (/^\s*(javascript|data|vbscript):/i.test(attribute.value) && !(element.localName === 'img' && attribute.name === 'src')) {
          found.push(`${attribute.name}=${attribute.value}`);
        }
      }
    }
    return found;
  });
}

/**
 * Waits until the frame's document and everything it loads are done (errors fired), then clicks
 * what can be clicked. Polled by time, not by animation frame: a frame below the fold (under a
 * long review) gets its animation frames throttled, and a `raf` poll there may never run.
 */
async function loadAndClick(page: Page): Promise<void> {
  const handle = await page.locator('iframe[title="Page"]').elementHandle();
  const content = await handle!.contentFrame();
  await content!.waitForFunction(() => document.readyState === 'complete' && document.body !== null, undefined, { polling: 100 });
  for (const target of await frame(page).locator('.click').all()) await target.click();
  await content!.waitForFunction(() => document.readyState === 'complete', undefined, { polling: 100 });
}

describe('the XSS corpus', () => {
  it('[PAGE2] [PAGE9] runs in a plain page (the control), and 0 times in a created page or a candidate shown in the app', async () => {
    // The corpus is made to be refused: the browser reports each refusal (and the control page's hits) in the console.
    people.allowPageError(/./);
    let hits: string[] = [];
    const alice = await people.open('/', server.token('editor', { name: 'Alice' }), async ({ context }) => {
      hits = await countHits(context);
    });

    // Control: the same payloads, unsanitized, in a page of the same context without Tandem.
    const control = await alice.context.newPage();
    await control.setContent(`<!doctype html><body>${corpus}</body>`);
    await control.locator('p.click').click();
    await control.locator('a.click').first().click();
    await expect.poll(() => new Set(hits).size).toBeGreaterThanOrEqual(5);
    expect(hits).toEqual(expect.arrayContaining(['script', 'img-onerror', 'svg-onload', 'onclick', 'srcdoc', 'ontoggle']));
    await control.close();
    hits.length = 0;

    // A created page, shown in the app, every link and button clicked.
    const page = await createPage(server, `<h1>Title</h1><section>${corpus}</section>`);
    await alice.page.goto(`${server.url}/d/${page.id}`);
    await frame(alice.page).locator('h1').waitFor();
    await loadAndClick(alice.page);
    expect(await unsafeInFrame(alice.page)).toEqual([]);
    expect(await alice.page.locator('iframe[title="Page"]').getAttribute('sandbox')).toBe('allow-same-origin');
    expect(await frame(alice.page).locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')).toMatch(/^default-src 'none';/);

    // A candidate holding the corpus again, through replace_element and set_attribute.
    const h1 = byTag(page.elements, 'h1');
    const section = byTag(page.elements, 'section');
    const first = await instructElement(server, page.id, h1.id, 'rewrite');
    const second = await instructElement(server, page.id, section.id, 'rewrite');
    const runId = (await server.api(`/api/docs/${page.id}/runs`, { method: 'POST' })).body.runId;
    const bot = agentApi(server, server.token('agent'));
    await bot.claim(runId);
    const refused = await bot.ops(runId, 'k0', [
      { op: 'set_attribute', elementId: h1.id, name: 'href', value: `javascript:${hit('set-href')}`, expectHash: h1.hash, instructionId: first },
    ]);
    expect(refused).toMatchObject({ status: 422, body: { error: { code: 'INVALID_OP' } } });
    const applied = await bot.ops(runId, 'k1', [
      { op: 'set_attribute', elementId: h1.id, name: 'title', value: `"><img src=x onerror=${hit('title-breakout')}>`, expectHash: h1.hash, instructionId: first },
      { op: 'replace_element', elementId: section.id, html: `<section class="click" onclick="${hit('replace-onclick')}">${corpus}</section>`, expectHash: section.hash, instructionId: second },
    ]);
    expect(applied.status).toBe(200);
    await bot.complete(runId);
    await reviewPanel(alice.page).waitFor({ timeout: 20_000 });
    await alice.page.getByRole('button', { name: 'Candidate' }).click();
    await expect.poll(() => frame(alice.page).locator('section').getAttribute('data-tandem-changed')).toBe('2');
    await loadAndClick(alice.page);
    expect(await unsafeInFrame(alice.page)).toEqual([]);
    expect(await frame(alice.page).locator('h1').getAttribute('title')).toBe(`"><img src=x onerror=${hit('title-breakout')}>`);
    expect(await alice.page.getByRole('button', { name: 'Pick an element' }).isDisabled()).toBe(true);
    await alice.page.getByRole('button', { name: 'Source' }).click();
    await loadAndClick(alice.page);
    await alice.page.getByRole('button', { name: 'Pick an element' }).click();
    await frame(alice.page).locator('p.click').click();
    await alice.page.getByRole('form', { name: 'Note on an element' }).waitFor();

    expect(hits).toEqual([]);
  });
});
