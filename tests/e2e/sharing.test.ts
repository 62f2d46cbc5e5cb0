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
