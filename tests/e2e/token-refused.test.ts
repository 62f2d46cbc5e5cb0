import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { tokenIdOf } from '../../server/auth/revoke.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { countCollabSockets, typeAtEnd, useBrowser, waitForStatus, type Person } from '../helpers/browser.ts';

const server = useTestServer();
const people = useBrowser(server);
const now = () => Math.floor(Date.now() / 1000);

const countSockets = async ({ page }: Person) => {
  await page.addInitScript(countCollabSockets);
};

const collabSockets = (page: Page) => page.evaluate(() => (window as unknown as { collabSockets: number }).collabSockets);

/**
 * The barrier after which a client that kept retrying would have opened another socket: the
 * server restarts (every open socket closes), `control` (a page of the same build with a token
 * the server accepts, counting its sockets too) reconnects by the same retry schedule, and then
 * another person's edit reaches the server.
 */
async function restartAndWaitForReconnects(control: Page, docId: string, before: string): Promise<void> {
  const controlSockets = await collabSockets(control);
  await server.restart();
  await expect.poll(() => collabSockets(control), { timeout: 20_000 }).toBeGreaterThan(controlSockets);
  await waitForStatus(control, 'Connected');
  const bob = await people.openDoc(docId, server.token('editor', { name: 'Bob' }));
  await typeAtEnd(bob.page, ' Bob.');
  await expect.poll(async () => (await server.api(`/api/docs/${docId}/markdown`)).body, { timeout: 15_000 }).toBe(`${before} Bob.`);
}

/** A person with a token the server accepts, on document `docId`, whose sockets are counted. */
async function controlPerson(docId: string): Promise<Page> {
  const carol = await people.open(`/d/${docId}`, server.token('editor', { name: 'Carol' }), countSockets);
  await waitForStatus(carol.page, 'Connected');
  return carol.page;
}

/** The refusal screen and nothing of the document's offline states. */
async function expectOneRefusalScreen(page: Page, heading: string, happened: string): Promise<void> {
  await page.getByRole('heading', { name: heading }).waitFor({ timeout: 15_000 });
  expect(await page.getByRole('alert').allInnerTexts()).toEqual([happened]);
  expect(await page.getByText('Offline', { exact: true }).count()).toBe(0);
  expect(await page.getByText('has not been opened on this device before').count()).toBe(0);
  expect(await page.getByRole('link', { name: 'All documents' }).count()).toBe(1);
}

describe('a token the server refuses, in the browser', { timeout: 120_000 }, () => {
  it('[TOKEN7] a link with a bad signature shows one clear screen, not "offline", and makes no more handshakes', async () => {
    const id = await server.createDoc('Refused', 'Text.');
    const good = server.token('editor', { name: 'Alice' });
    const forged = good.slice(0, -4) + (good.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    const alice = await people.open(`/d/${id}`, forged, countSockets);
    await expectOneRefusalScreen(alice.page, 'This link does not open the document', 'The server did not accept this link’s sign-in — ask for a new link.');
    const socketsWhenRefused = await collabSockets(alice.page);
    expect(socketsWhenRefused).toBe(1);

    await restartAndWaitForReconnects(await controlPerson(id), id, 'Text.');
    expect(await collabSockets(alice.page)).toBe(socketsWhenRefused);
    await expectOneRefusalScreen(alice.page, 'This link does not open the document', 'The server did not accept this link’s sign-in — ask for a new link.');
  });

  it('[TOKEN7] [TOKEN4] a link that expires while the document is open shows the same screen and stops reconnecting', async () => {
    const id = await server.createDoc('Expiring', 'Text.');
    const carol = await controlPerson(id);
    const alice = await people.open(`/d/${id}`, server.token('editor', { name: 'Alice', exp: now() + 4 }), countSockets);
    await waitForStatus(alice.page, 'Connected');
    await expectOneRefusalScreen(alice.page, 'Your link has expired', 'Your link has expired — ask for a new one.');
    const socketsWhenRefused = await collabSockets(alice.page);

    await restartAndWaitForReconnects(carol, id, 'Text.');
    expect(await collabSockets(alice.page)).toBe(socketsWhenRefused);
  });

  it('[TOKEN7] [TOKEN4] a token revoked while the document is open shows the removal screen and stops reconnecting', async () => {
    const id = await server.createDoc('Revoked', 'Text.');
    const carol = await controlPerson(id);
    const token = server.token('editor', { name: 'Alice' });
    const alice = await people.open(`/d/${id}`, token, countSockets);
    await waitForStatus(alice.page, 'Connected');
    await server.revoke(tokenIdOf(token)!.jti, null);
    await expectOneRefusalScreen(alice.page, 'Your access was removed', 'Your link has been revoked — ask for a new one.');
    const socketsWhenRefused = await collabSockets(alice.page);

    await restartAndWaitForReconnects(carol, id, 'Text.');
    expect(await collabSockets(alice.page)).toBe(socketsWhenRefused);
    await expectOneRefusalScreen(alice.page, 'Your access was removed', 'Your link has been revoked — ask for a new one.');
  });

  it('[TOKEN7] a link made for another document says so on one screen and makes no more handshakes', async () => {
    const id = await server.createDoc('Asked for', 'Text.');
    const other = await server.createDoc('Made for', 'Other.');
    const alice = await people.open(`/d/${id}`, server.token('editor', { name: 'Alice', doc: other }), countSockets);
    const screen = ['This link is for another document', 'Your link does not open this document — ask for a new link to it.'] as const;
    await expectOneRefusalScreen(alice.page, ...screen);
    const socketsWhenRefused = await collabSockets(alice.page);
    expect(socketsWhenRefused).toBe(1);

    await restartAndWaitForReconnects(await controlPerson(id), id, 'Text.');
    expect(await collabSockets(alice.page)).toBe(socketsWhenRefused);
    await expectOneRefusalScreen(alice.page, ...screen);
  });
});
