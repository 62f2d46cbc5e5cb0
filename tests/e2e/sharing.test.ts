import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { preferredIndex } from '../../client/presence-colors.ts';
import { tokenEndedCloseCode } from '../../shared/protocol/denials.ts';
import { annotationCards, pinAnnotation, useBrowser, waitForStatus } from '../helpers/browser.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

const server = useTestServer();
const people = useBrowser(server);

/** Who the page shows as present: each name and the colour of its dot. */
function presentPeople(page: Page): Promise<{ name: string; color: string }[]> {
  return page.locator('.presence .peer').evaluateAll((items) =>
    items.map((item) => ({
      name: item.querySelector('.peer-name')!.textContent!.trim(),
      color: getComputedStyle(item.querySelector('.peer-dot')!).backgroundColor,
    })),
  );
}

/** A subject other than `subject` whose preferred colour is the same one (PRES7). */
function clashingSubject(subject: string): string {
  for (let i = 0; ; i++) if (`carol-${i}` !== subject && preferredIndex(`carol-${i}`) === preferredIndex(subject)) return `carol-${i}`;
}

/** An init script that keeps, on `window.collabWatch`, how many `/collab` sockets the page opened and each one's close code, in order. */
const watchCollabSockets = `(() => {
  const Native = window.WebSocket;
  window.collabWatch = { opened: 0, closes: [] };
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(url, protocols);
      if (new URL(url).pathname !== '/collab') return;
      window.collabWatch.opened += 1;
      this.addEventListener('close', (event) => window.collabWatch.closes.push(event.code));
    }
  };
})()`;

const collabSockets = (page: Page) => page.evaluate(() => (window as unknown as { collabWatch: { opened: number; closes: number[] } }).collabWatch);

const distinct = (colors: string[]) => new Set(colors).size === colors.length;

/** Makes a link in `page`'s Share dialog with the fields given; the dialog stays open. */
async function createLink(page: Page, fields: { role: string; expires?: string; uses?: string }) {
  await page.getByRole('button', { name: 'Share' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share this document' });
  await dialog.getByLabel('Role').selectOption(fields.role);
  if (fields.expires) await dialog.getByLabel('Expires').selectOption({ label: fields.expires });
  if (fields.uses) await dialog.getByLabel('Uses').fill(fields.uses);
  await dialog.getByRole('button', { name: 'Create link' }).click();
  const linkBox = dialog.getByRole('textbox', { name: 'Invite link' });
  await linkBox.waitFor();
  return { dialog, link: await linkBox.inputValue() };
}

/** A fresh person opens `link`, gives `name` and is told the invite has ended, staying on the join page. */
async function expectEndedOnJoin(link: string, name: string): Promise<void> {
  const person = await people.blank();
  await person.page.goto(link);
  await person.page.getByRole('textbox', { name: 'Your name' }).fill(name);
  await person.page.getByRole('button', { name: 'Join' }).click();
  await expect.poll(() => person.page.getByRole('alert').innerText()).toBe('This invite has ended — ask for a new link.');
  expect(new URL(person.page.url()).pathname).toBe('/join');
}

describe('sharing a document with a link', { timeout: 180_000 }, () => {
  it('[INV1] [INV4] [INV6] [PRES7] an editor shares a commenter link; the second person joins by name, comments, is seen by name, and removal ends their session', async () => {
    const id = await server.createDoc('Shared plan', 'The plan for the week.');
    const alice = await people.open(`/d/${id}`, server.token('editor', { sub: 'alice', name: 'Alice' }));
    await alice.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await waitForStatus(alice.page, 'Connected');

    // Share → a commenter link → Copy link.
    await alice.page.getByRole('button', { name: 'Share' }).click();
    const dialog = alice.page.getByRole('dialog', { name: 'Share this document' });
    await dialog.getByLabel('Role').selectOption('commenter');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const linkBox = dialog.getByRole('textbox', { name: 'Invite link' });
    await linkBox.waitFor();
    const link = await linkBox.inputValue();
    expect(link).toMatch(new RegExp(`^${server.url}/join#[\\w-]{24}$`));
    await dialog.getByRole('button', { name: 'Copy link' }).click();
    await expect.poll(() => alice.page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await expect.poll(() => dialog.getByRole('list', { name: 'Links' }).innerText()).toContain('Commenter link · 0 uses');
    await dialog.getByRole('button', { name: 'Close' }).click();

    // A fresh browser opens the link, gives a name and joins.
    const bob = await people.blank();
    await bob.context.addInitScript(watchCollabSockets);
    await bob.page.goto(link);
    await bob.page.getByRole('textbox', { name: 'Your name' }).fill('Bob');
    await bob.page.getByRole('textbox', { name: 'Your name' }).press('Enter');
    await bob.page.waitForURL(`${server.url}/d/${id}`);
    await waitForStatus(bob.page, 'Connected');
    expect(bob.page.url()).not.toContain('#');
    expect(await bob.page.locator('.read-only-note').innerText()).toBe('You can comment on this document but not change it.');

    // Bob comments; the card and the server carry his name.
    await pinAnnotation(bob.page, 'comment', 'plan', 'Which week?');
    await expect.poll(async () => (await server.api(`/api/docs/${id}`)).body.annotations.map((note: { author: { name: string } }) => note.author.name)).toEqual(['Bob']);
    await expect.poll(() => annotationCards(alice.page).locator('.card-author').allInnerTexts(), { timeout: 15_000 }).toEqual(['Bob']);

    // A third person whose preferred colour is Alice's: the three present get three colours.
    const carol = await people.openDoc(id, server.token('editor', { sub: clashingSubject('alice'), name: 'Carol' }));
    for (const page of [alice.page, bob.page, carol.page]) {
      await expect.poll(async () => (await presentPeople(page)).map((peer) => peer.name).sort(), { timeout: 15_000 }).toEqual(['Alice', 'Bob', 'Carol']);
      await expect.poll(async () => distinct((await presentPeople(page)).map((peer) => peer.color)), { timeout: 15_000 }).toBe(true);
    }
    // Every page shows each person in the same colour.
    const colorsOn = async (page: Page) => Object.fromEntries((await presentPeople(page)).map((peer) => [peer.name, peer.color]));
    await expect.poll(async () => [await colorsOn(bob.page), await colorsOn(carol.page)]).toEqual([await colorsOn(alice.page), await colorsOn(alice.page)]);
    // Carol's own dot in the app bar is the colour the others see for her, not her preferred one.
    const ownDot = (page: Page) => page.locator('.app-bar .me .peer-dot').evaluate((dot) => getComputedStyle(dot).backgroundColor);
    await expect.poll(async () => (await colorsOn(alice.page)).Carol).not.toBe((await colorsOn(alice.page)).Alice);
    await expect.poll(() => ownDot(carol.page)).toBe((await colorsOn(alice.page)).Carol);

    // Alice sees Bob among the document's people and removes him: his session ends at once.
    await alice.page.getByRole('button', { name: 'Share' }).click();
    await expect.poll(() => dialog.getByRole('list', { name: 'People' }).innerText()).toContain('Bob');
    await expect.poll(() => dialog.getByRole('list', { name: 'Links' }).innerText()).toContain('Commenter link · 1 use');
    const bobSockets = await collabSockets(bob.page);
    await dialog.getByRole('button', { name: 'Remove Bob' }).click();
    await bob.page.getByRole('heading', { name: 'Your access was removed' }).waitFor({ timeout: 10_000 });
    // The screen came from the server closing Bob's open socket (the token-ended code), not from
    // a later handshake: his page opened no socket since, and saw that one close.
    expect(await collabSockets(bob.page)).toEqual({ opened: bobSockets.opened, closes: [...bobSockets.closes, tokenEndedCloseCode] });
    await expect.poll(() => dialog.getByRole('list', { name: 'People' }).innerText()).not.toContain('Bob');
    await expect.poll(async () => (await presentPeople(alice.page)).map((peer) => peer.name).sort(), { timeout: 15_000 }).toEqual(['Alice', 'Carol']);
  });

  it('[INV1] [INV4] Revoke in the Share dialog ends a link: opening it then admits nobody', async () => {
    const id = await server.createDoc('Revoked in the app');
    const alice = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    const { dialog, link } = await createLink(alice.page, { role: 'viewer' });
    const links = dialog.getByRole('list', { name: 'Links' });
    await expect.poll(() => links.innerText()).toContain('Viewer link · 0 uses');
    await links.getByRole('button', { name: /^Revoke Viewer link/ }).click();
    await expect.poll(() => dialog.getByRole('status').innerText()).toBe('Link revoked: it admits nobody new.');
    await expect.poll(() => links.getByRole('listitem').count()).toBe(0);
    await dialog.getByText('No link admits anyone now.').waitFor();
    expect((await server.api(`/api/docs/${id}/invites`)).body).toEqual([]);

    await expectEndedOnJoin(link, 'Erin');
    expect((await server.api(`/api/docs/${id}/people`)).body).toEqual([]);
  });

  it('[INV1] [INV4] a link made with Expires and Uses admits one person until the day it names, and nobody after its one use', async () => {
    const id = await server.createDoc('One seat');
    const alice = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    const before = Date.now();
    const { dialog, link } = await createLink(alice.page, { role: 'viewer', expires: 'In 1 day', uses: '1' });
    const after = Date.now();
    const [made] = (await server.api(`/api/docs/${id}/invites`)).body as { expiresAt: string; uses: number; maxUses: number }[];
    expect(made).toMatchObject({ uses: 0, maxUses: 1 });
    const day = 24 * 3600 * 1000;
    expect(Date.parse(made.expiresAt)).toBeGreaterThanOrEqual(before + day - 1000);
    expect(Date.parse(made.expiresAt)).toBeLessThanOrEqual(after + day + 1000);
    const links = dialog.getByRole('list', { name: 'Links' });
    await expect.poll(() => links.innerText()).toContain('Viewer link · 0 of 1 uses · until ');
    await dialog.getByRole('button', { name: 'Close' }).click();

    const frank = await people.blank();
    await frank.page.goto(link);
    await frank.page.getByRole('textbox', { name: 'Your name' }).fill('Frank');
    await frank.page.getByRole('button', { name: 'Join' }).click();
    await frank.page.waitForURL(`${server.url}/d/${id}`);
    await waitForStatus(frank.page, 'Connected');
    expect(await frank.page.locator('.read-only-note').innerText()).toBe('You can read this document but not change it.');

    await expectEndedOnJoin(link, 'Grace');
    expect(((await server.api(`/api/docs/${id}/people`)).body as { name: string }[]).map((person) => person.name)).toEqual(['Frank']);
    // Used up, the link leaves the list of links that admit people.
    await alice.page.getByRole('button', { name: 'Share' }).click();
    await expect.poll(() => dialog.getByRole('list', { name: 'People' }).innerText()).toContain('Frank');
    expect(await links.getByRole('listitem').count()).toBe(0);
    await dialog.getByText('No link admits anyone now.').waitFor();
  });

  it('[INV1] Share is offered to editors only: commenters and viewers do not get it', async () => {
    const id = await server.createDoc('Who shares');
    const editor = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await editor.page.getByRole('button', { name: 'Share' }).waitFor();
    for (const role of ['commenter', 'viewer'] as const) {
      const { page } = await people.openDoc(id, server.token(role, { name: role }));
      // Version history is drawn with Share, from the same session: once it shows, Share would have.
      await page.getByRole('button', { name: 'Version history' }).waitFor();
      expect(await page.locator('tandem-share-dialog').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Share' }).count()).toBe(0);
    }
  });

  it('[INV4] a link that was revoked says so on the join page, and signs nobody in', async () => {
    const id = await server.createDoc('Closed');
    const created = await server.api(`/api/docs/${id}/invites`, { method: 'POST', body: { role: 'viewer' } });
    await server.api(`/api/invites/${created.body.inviteId}`, { method: 'DELETE' });
    const dana = await people.blank();
    await dana.page.goto(created.body.url);
    await dana.page.getByRole('textbox', { name: 'Your name' }).fill('Dana');
    await dana.page.getByRole('button', { name: 'Join' }).click();
    await expect.poll(() => dana.page.getByRole('alert').innerText()).toBe('This invite has ended — ask for a new link.');
    expect(new URL(dana.page.url()).pathname).toBe('/join');
  });
});
