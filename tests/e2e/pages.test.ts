import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import { reviewPanel, sendInstructions, useBrowser } from '../helpers/browser.ts';
import { pageOf } from '../helpers/pages.ts';

/*
 * Pages in the app (shared/PROTOCOL.md PAGE9): New page, the page in a frame that runs no
 * script, Pick an element and its keyboard list, an instruction on an element, Send, the
 * preview toggle with the changed element outlined and numbered, Accept run and Discard run.
 */

const server = useTestServer();
const people = useBrowser(server);

const landing = '<h1>Welcome to the best landing page ever written</h1><p>Read <a href="https://example.com/docs">the docs</a>.</p>';

const frame = (page: Page) => page.frameLocator('iframe[title="Page"]');

async function newPage(page: Page, html: string): Promise<string> {
  await page.getByRole('button', { name: 'New page' }).click();
  const form = page.getByRole('form', { name: 'New page' });
  await form.getByLabel('Title').fill('Landing');
  await form.getByLabel('HTML', { exact: true }).fill(html);
  await form.getByRole('button', { name: 'Create page' }).click();
  await page.waitForURL(/\/d\/[A-Za-z0-9_-]+$/);
  await page.getByText('Connected', { exact: true }).waitFor();
  return new URL(page.url()).pathname.split('/').pop()!;
}

/** Picks `selector` in the frame with the mouse, writes `text` and presses Instruct. */
async function instructByClick(page: Page, selector: string, text: string): Promise<void> {
  await page.getByRole('button', { name: 'Pick an element' }).click();
  await frame(page).locator(selector).hover();
  await expect.poll(() => frame(page).locator(`${selector}[data-tandem-hover]`).count()).toBe(1);
  await frame(page).locator(selector).click();
  const form = page.getByRole('form', { name: 'Note on an element' });
  await form.getByLabel('Note').fill(text);
  await form.getByRole('button', { name: 'Instruct' }).click();
  await form.waitFor({ state: 'hidden' });
}

describe('pages in the app', () => {
  it('[PAGE9] pick → instruct → send → preview → accept: the page changes only on Accept', async () => {
    const alice = await people.open('/', server.token('editor', { name: 'Alice' }));
    const id = await newPage(alice.page, landing);
    await expect.poll(() => frame(alice.page).locator('h1').textContent()).toBe('Welcome to the best landing page ever written');
    expect(await alice.page.locator('iframe[title="Page"]').getAttribute('sandbox')).toBe('allow-same-origin');

    await instructByClick(alice.page, 'h1', 'set text "Welcome"');
    // The keyboard way: the list of elements.
    const a = (await pageOf(server, id)).elements.find((element) => element.tag === 'a')!;
    await alice.page.getByLabel('Element').selectOption(a.id);
    const form = alice.page.getByRole('form', { name: 'Note on an element' });
    await form.getByLabel('Note').fill('uppercase');
    await form.getByRole('button', { name: 'Instruct' }).click();
    await expect.poll(() => alice.page.locator('.page-note').count()).toBe(2);

    await sendInstructions(alice.page, 2);
    const agent = startTestReferenceAgent(server, { pollSeconds: 1 });
    try {
      await reviewPanel(alice.page).waitFor({ timeout: 20_000 });
      // In review, the source is unchanged, in the frame and through the API.
      expect(await frame(alice.page).locator('h1').textContent()).toBe('Welcome to the best landing page ever written');
      expect((await pageOf(server, id)).html).toContain('Welcome to the best landing page ever written');

      await alice.page.getByRole('button', { name: 'Candidate' }).click();
      await expect.poll(() => frame(alice.page).locator('h1').textContent()).toBe('Welcome');
      expect(await frame(alice.page).locator('h1').getAttribute('data-tandem-changed')).toBe('1');
      expect(await frame(alice.page).locator('a').getAttribute('data-tandem-changed')).toBe('2');
      expect(await frame(alice.page).locator('a').textContent()).toBe('THE DOCS');

      await reviewPanel(alice.page).getByRole('button', { name: 'Accept run' }).click();
      await reviewPanel(alice.page).waitFor({ state: 'detached' });
      await expect.poll(() => frame(alice.page).locator('h1').textContent()).toBe('Welcome');
      expect(await frame(alice.page).locator('[data-tandem-changed]').count()).toBe(0);
      expect((await pageOf(server, id)).html).toContain('>Welcome</h1>');
    } finally {
      await agent.stop();
    }
  });

  it('[PAGE9] Discard run leaves the page as it was', async () => {
    const alice = await people.open('/', server.token('editor', { name: 'Alice' }));
    const id = await newPage(alice.page, landing);
    const before = (await pageOf(server, id)).html;
    await instructByClick(alice.page, 'p', 'lowercase');
    await sendInstructions(alice.page, 1);
    const agent = startTestReferenceAgent(server, { pollSeconds: 1 });
    try {
      await reviewPanel(alice.page).waitFor({ timeout: 20_000 });
      await alice.page.getByRole('button', { name: 'Candidate' }).click();
      await expect.poll(() => frame(alice.page).locator('p').textContent()).toBe('read the docs.');
      await reviewPanel(alice.page).getByRole('button', { name: 'Discard run' }).click();
      await reviewPanel(alice.page).waitFor({ state: 'detached' });
      await expect.poll(() => frame(alice.page).locator('p').textContent()).toBe('Read the docs.');
      expect((await pageOf(server, id)).html).toBe(before);
    } finally {
      await agent.stop();
    }
  });
});

describe('the source of a page', () => {
  it('[PAGE11] is edited together in the code view: the other person’s frame follows, and new elements get ids on leaving the box', async () => {
    const id = (await server.api('/api/docs', { method: 'POST', body: { title: 'Shared', kind: 'page', html: '<h1>One</h1>' } })).body.id;
    const alice = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    const bob = await people.openDoc(id, server.token('editor', { name: 'Bob' }));
    await alice.page.getByText('Source', { exact: true }).click();
    const box = alice.page.getByLabel('Page source');
    await expect.poll(() => box.inputValue()).toMatch(/^<h1 data-tandem-id="[^"]+">One<\/h1>$/);
    await box.press('End');
    await box.pressSequentially('<p>Two</p>');
    await expect.poll(() => frame(bob.page).locator('p').textContent()).toBe('Two');
    expect(await frame(bob.page).locator('p').getAttribute('data-tandem-id')).toBeNull();
    await alice.page.getByRole('button', { name: 'Pick an element' }).focus();
    await expect.poll(() => frame(bob.page).locator('p').getAttribute('data-tandem-id')).toMatch(/^e[0-9a-z]+$/);
    expect((await pageOf(server, id)).elements.map((element) => element.tag)).toEqual(['h1', 'p']);
  });
});
