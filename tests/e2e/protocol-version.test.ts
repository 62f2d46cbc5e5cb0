import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/use-test-server.ts';
import { countCollabSockets, readText, typeAtEnd, useBrowser, waitForSavedLocally, waitForStatus } from '../helpers/browser.ts';

const server = useTestServer();
const people = useBrowser(server);

describe('a build older than the server supports', () => {
  it('[VER4] says Tandem was updated, stops reconnecting, keeps local edits and merges them after the reload', async () => {
    const id = await server.createDoc('Updated', 'Before.');
    const alice = await people.open(`/d/${id}`, server.token('editor', { name: 'Alice' }), async ({ page }) => {
      await page.addInitScript(countCollabSockets);
    });
    const { page } = alice;
    await waitForStatus(page, 'Connected');
    const reload = page.getByRole('button', { name: 'Tandem was updated — reload' });
    expect(await reload.count()).toBe(0);

    // A release that no longer serves this build's protocol version.
    await server.restart({ oldestProtocol: 2 });
    await reload.waitFor({ timeout: 20_000 });
    expect(await page.getByRole('alert').filter({ hasText: 'Tandem was updated — reload' }).count()).toBe(1);
    await waitForStatus(page, 'Offline');
    const socketsWhenRefused = await page.evaluate(() => (window as unknown as { collabSockets: number }).collabSockets);

    await typeAtEnd(page, ' Alice while outdated.');
    await expect.poll(() => readText(page), { timeout: 15_000 }).toBe('Before. Alice while outdated.');
    await waitForSavedLocally(page);

    // The server that answers the reload serves this build again (it stands in for the new
    // build's shell). Bob's edit, made once that server is up, is the barrier: a client that
    // kept retrying would have reconnected by then and received it.
    await server.restart({ oldestProtocol: undefined });
    const bob = await people.openDoc(id, server.token('editor', { name: 'Bob' }));
    await typeAtEnd(bob.page, ' Bob.');
    await expect.poll(async () => (await server.api(`/api/docs/${id}/markdown`)).body, { timeout: 15_000 }).toBe('Before. Bob.');
    expect(await page.evaluate(() => (window as unknown as { collabSockets: number }).collabSockets)).toBe(socketsWhenRefused);
    expect(await readText(page)).toBe('Before. Alice while outdated.');

    await reload.click();
    await waitForStatus(page, 'Connected');
    expect(await reload.count()).toBe(0);
    const merged = (text: string) => text.includes('Alice while outdated.') && text.includes('Bob.');
    await expect.poll(async () => merged(await readText(page)), { timeout: 15_000 }).toBe(true);
    await expect.poll(async () => merged(await readText(bob.page)), { timeout: 15_000 }).toBe(true);
    await expect.poll(async () => merged((await server.api(`/api/docs/${id}/markdown`)).body), { timeout: 15_000 }).toBe(true);
  });
});
