import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { clickBefore, documentText, readText, selectText, useBrowser } from '../helpers/browser.ts';

const server = useTestServer();
const people = useBrowser(server);

const serverMarkdown = async (id: string): Promise<string> => (await server.api(`/api/docs/${id}/markdown`)).body as string;
const addressBox = (page: Page) => page.getByRole('textbox', { name: 'Link address', exact: true });
/** Whether the keyboard focus is in the document's text. */
const focusInText = (page: Page) => documentText(page).evaluate((editor) => editor.contains(document.activeElement));

/** Puts `text` on the person's clipboard as plain text, as copying it from an address bar does. */
async function copyText(page: Page, text: string): Promise<void> {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  await page.evaluate((copied) => navigator.clipboard.writeText(copied), text);
}

describe('[LINK4] the link box', () => {
  it('links the selected text with Ctrl+K and Enter, refusing a javascript: address with a message', async () => {
    const id = await server.createDoc('Links', 'Read the manual today.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await selectText(page, 'manual');
    await page.keyboard.press('Control+k');
    const box = addressBox(page);
    await expect.poll(() => box.evaluate((input) => input === document.activeElement)).toBe(true);
    await page.keyboard.type('javascript:alert(1)');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'Links can only go to http, https or mailto' }).count()).toBe(1);
    expect(await box.getAttribute('aria-invalid')).toBe('true');
    await box.fill('https://example.com/manual');
    await page.keyboard.press('Enter');
    await box.waitFor({ state: 'detached' });
    await expect.poll(() => serverMarkdown(id)).toBe('Read the [manual](https://example.com/manual) today.');
    expect(await focusInText(page)).toBe(true);
  });
});

describe('[LINK4] the link box, by mouse and Escape', () => {
  it('opens from the toolbar button Link and Escape leaves the text as it was, the focus in it', async () => {
    const id = await server.createDoc('Links by mouse', 'Read the manual today.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await selectText(page, 'today');
    await page.getByRole('button', { name: 'Link', exact: true }).click();
    await addressBox(page).fill('example.com/today');
    await page.keyboard.press('Escape');
    await addressBox(page).waitFor({ state: 'detached' });
    expect(await focusInText(page)).toBe(true);
    // The selection is the text again: typing replaces it.
    await page.keyboard.type('soon');
    await expect.poll(() => serverMarkdown(id)).toBe('Read the manual soon.');

    await selectText(page, 'soon');
    await page.getByRole('button', { name: 'Link', exact: true }).click();
    await addressBox(page).fill('example.com/soon');
    await addressBox(page).press('Enter');
    // A bare host name is the https address people mean.
    await expect.poll(() => serverMarkdown(id)).toBe('Read the manual [soon](https://example.com/soon).');
    // The caret is at the new link's end, which the toolbar shows as a link.
    expect(await page.getByRole('button', { name: 'Link', exact: true }).getAttribute('aria-pressed')).toBe('true');
  });
});

describe('[LINK4] a link in the text', () => {
  it('offers Open link in a new tab without an opener, Edit link and Remove link', async () => {
    const target = `${server.url}/healthz`;
    const id = await server.createDoc('Link buttons', `See [the status](${target}) page.`);
    const { page, context } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    const path = new URL(page.url()).pathname;
    await clickBefore(page, 'status');
    const open = page.getByRole('button', { name: 'Open link', exact: true });
    await open.waitFor();
    expect(await page.getByRole('button', { name: 'Link', exact: true }).getAttribute('aria-pressed')).toBe('true');
    const [tab] = await Promise.all([context.waitForEvent('page'), open.click()]);
    await tab.waitForLoadState();
    expect(tab.url()).toBe(target);
    expect(await tab.evaluate(() => window.opener)).toBe(null);
    expect(await tab.evaluate(() => document.referrer)).toBe('');
    await tab.close();
    // The click on the link placed the caret; this tab stayed on the document.
    expect(new URL(page.url()).pathname).toBe(path);

    await page.getByRole('button', { name: 'Edit link', exact: true }).click();
    const box = addressBox(page);
    expect(await box.inputValue()).toBe(target);
    await box.fill('https://example.com/status');
    await box.press('Enter');
    await expect.poll(() => serverMarkdown(id)).toBe('See [the status](https://example.com/status) page.');

    await clickBefore(page, 'the status');
    await page.keyboard.press('ArrowRight');
    await page.getByRole('button', { name: 'Remove link', exact: true }).click();
    await expect.poll(() => serverMarkdown(id)).toBe('See the status page.');
    await expect.poll(() => page.getByRole('button', { name: 'Open link' }).count()).toBe(0);
    expect(await focusInText(page)).toBe(true);
  });

  it('is reached from the keyboard: Tab to its buttons, Escape back, Ctrl+K edits it, an emptied box removes it', async () => {
    const id = await server.createDoc('Link keys', 'See [the status](https://example.com/s) page.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await clickBefore(page, 'status');
    await page.keyboard.press('Tab');
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    await expect.poll(focused).toBe('Open link');
    await page.keyboard.press('Escape');
    await expect.poll(() => focusInText(page)).toBe(true);
    await page.keyboard.press('Control+k');
    const box = addressBox(page);
    expect(await box.inputValue()).toBe('https://example.com/s');
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    await expect.poll(() => serverMarkdown(id)).toBe('See the status page.');

    await clickBefore(page, 'page');
    await page.keyboard.press('Control+k');
    await page.keyboard.type('https://example.com/new');
    await page.keyboard.press('Enter');
    // A caret outside any link: the address goes in as linked text.
    await expect.poll(() => serverMarkdown(id)).toBe('See the status <https://example.com/new>page.');
  });

  it('opens with Alt+Enter from the caret and with Ctrl+click, in a new tab', async () => {
    const target = `${server.url}/healthz`;
    const id = await server.createDoc('Link keys open', `See [the status](${target}) page.`);
    const { page, context } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await clickBefore(page, 'status');
    const [byKey] = await Promise.all([context.waitForEvent('page'), page.keyboard.press('Alt+Enter')]);
    await byKey.waitForLoadState();
    expect(byKey.url()).toBe(target);
    await byKey.close();
    // Alt+Enter opened the link and changed nothing in the text.
    expect(await serverMarkdown(id)).toBe(`See [the status](${target}) page.`);
    const box = await documentText(page).locator('a').boundingBox();
    await page.keyboard.down('Control');
    const [byClick] = await Promise.all([context.waitForEvent('page'), page.mouse.click(box!.x + 4, box!.y + box!.height / 2)]);
    await page.keyboard.up('Control');
    await byClick.waitForLoadState();
    expect(byClick.url()).toBe(target);
    expect(await byClick.evaluate(() => window.opener)).toBe(null);
  });

  it('opens in a new tab when a viewer clicks it, leaving the document open', async () => {
    const target = `${server.url}/healthz`;
    const id = await server.createDoc('Link viewer', `See [the status](${target}) page.`);
    const { page, context } = await people.openDoc(id, server.token('viewer', { name: 'Vera' }));
    const path = new URL(page.url()).pathname;
    const [tab] = await Promise.all([context.waitForEvent('page'), clickBefore(page, 'status')]);
    await tab.waitForLoadState();
    expect(tab.url()).toBe(target);
    expect(await tab.evaluate(() => window.opener)).toBe(null);
    expect(new URL(page.url()).pathname).toBe(path);
    expect(await page.getByRole('button', { name: 'Edit link' }).count()).toBe(0);
  });
});

describe('[LINK5] pasting a URL', () => {
  it('over selected text makes the text a link; Ctrl+Shift+V pastes the address as text', async () => {
    const id = await server.createDoc('Paste links', 'Read the manual today, then the notes.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await copyText(page, 'https://example.com/manual');
    await selectText(page, 'manual');
    await page.keyboard.press('Control+v');
    await expect.poll(() => serverMarkdown(id)).toBe('Read the [manual](https://example.com/manual) today, then the notes.');
    await selectText(page, 'notes');
    await page.keyboard.press('Control+Shift+v');
    await expect.poll(() => serverMarkdown(id)).toBe('Read the [manual](https://example.com/manual) today, then the https://example.com/manual.');
  });

  it('never links the text to a javascript: address', async () => {
    const id = await server.createDoc('Paste script', 'Read the manual today.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await copyText(page, 'javascript:alert(1)');
    await selectText(page, 'manual');
    await page.keyboard.press('Control+v');
    await expect.poll(() => readText(page)).toBe('Read the javascript:alert(1) today.');
    await expect.poll(() => serverMarkdown(id)).toBe('Read the javascript:alert(1) today.');
    expect(await documentText(page).locator('a').count()).toBe(0);
  });
});
