import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/use-test-server.ts';
import { readText, typeAtEnd, useBrowser, waitForSavedLocally, waitForStatus } from '../helpers/browser.ts';

const server = useTestServer();
const people = useBrowser(server);

/** The queue bar's chunk: one of the parts of a document's page that load after its text. */
const queueBarChunk = /\/assets\/tandem-queue-bar-[\w-]+\.js$/;

describe('code that loads on demand', () => {
  it('says when a part of the app did not arrive, keeps the text working, and loads it on the reload it offers', async () => {
    const id = await server.createDoc('Chunks', 'Before.');
    const alice = await people.open(`/d/${id}`, server.token('editor', { name: 'Alice' }), async ({ page }) => {
      // The request fails as it does when the server stops while the chunk is on its way.
      await page.route(queueBarChunk, (route) => route.abort('connectionrefused'));
    });
    const { page } = alice;
    const reload = page.getByRole('button', { name: 'Part of Tandem did not load — reload' });
    await reload.waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => customElements.get('tandem-queue-bar') === undefined)).toBe(true);

    await waitForStatus(page, 'Connected');
    await typeAtEnd(page, ' Typed meanwhile.');
    await expect.poll(async () => (await server.api(`/api/docs/${id}/markdown`)).body, { timeout: 15_000 }).toBe('Before. Typed meanwhile.');
    await waitForSavedLocally(page);

    await page.unroute(queueBarChunk);
    await reload.click();
    await page.waitForFunction(() => customElements.get('tandem-queue-bar') !== undefined, undefined, { timeout: 15_000 });
    await waitForStatus(page, 'Connected');
    expect(await reload.count()).toBe(0);
    expect(await readText(page)).toBe('Before. Typed meanwhile.');
  });
});
