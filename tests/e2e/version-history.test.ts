import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { readText, typeAtEnd, useBrowser } from '../helpers/browser.ts';
import { markdownOf } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { preferredColor } from '../../client/presence-colors.ts';

/*
 * Version history in the app (shared/PROTOCOL.md HIST6), as a person uses it: naming a version,
 * choosing it from the list with the keyboard, its text read-only and its changes, the
 * comparison with the current text, and a restore that every open editor of the document sees.
 */

const server = useTestServer();
const people = useBrowser(server);

const historyButton = (page: Page) => page.getByRole('button', { name: 'Version history', exact: true });
const panel = (page: Page) => page.getByRole('region', { name: 'Version history' });
const listedTitles = (page: Page) => panel(page).getByRole('list', { name: 'Versions' }).locator('.version-title').allInnerTexts();

/** The text of the insertions (`ins`) or deletions (`del`) drawn in `group`, joined. */
function changed(group: Locator, tag: 'ins' | 'del'): Promise<string> {
  return group.locator(tag).allInnerTexts().then((texts) => texts.join(''));
}

/** Presses Tab until the focused element's text starts with `text` (at most `limit` presses); whether it got there. */
async function tabTo(page: Page, text: string, limit = 20): Promise<boolean> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    if (focused.startsWith(text)) return true;
  }
  return false;
}

/** `#rrggbb` as the browser computes colours. */
function rgb(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
}

describe('Version history', () => {
  it('[HIST6] [HIST4] [HIST5] names a version, shows it read-only with its changes, compares it with the current text and restores it for everyone', async () => {
    const docId = await server.createDoc('Orchard', 'Apples');
    expect((await server.api(`/api/docs/${docId}/versions`, { method: 'POST', body: { name: 'Start' } })).status).toBe(201);
    const ana = await people.openDoc(docId, server.token('editor', { sub: 'ana', name: 'Ana' }));
    await typeAtEnd(ana.page, ' and pears');
    await expect.poll(() => markdownOf(server, docId)).toBe('Apples and pears');

    // Naming the text as it is now, from the keyboard.
    await historyButton(ana.page).click();
    await panel(ana.page).getByRole('textbox', { name: 'Version name' }).click();
    await ana.page.keyboard.type('Draft one');
    await ana.page.keyboard.press('Enter');
    await expect.poll(() => listedTitles(ana.page)).toEqual(['Draft one', 'Start']);
    expect(await panel(ana.page).getByRole('textbox', { name: 'Version name' }).inputValue()).toBe('');

    // Escape closes the panel and gives the focus back to its button.
    await ana.page.keyboard.press('Escape');
    await expect.poll(() => panel(ana.page).count()).toBe(0);
    expect(await ana.page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Version history');

    await typeAtEnd(ana.page, ' and plums');
    await expect.poll(() => markdownOf(server, docId)).toBe('Apples and pears and plums');
    const bo = await people.openDoc(docId, server.token('editor', { sub: 'bo', name: 'Bo' }));
    await expect.poll(() => readText(bo.page)).toBe('Apples and pears and plums');

    // Choosing Draft one with the keyboard: its text, read-only, and what changed before it.
    await historyButton(ana.page).focus();
    await ana.page.keyboard.press('Enter');
    await expect.poll(() => listedTitles(ana.page)).toContain('Draft one');
    expect(await tabTo(ana.page, 'Draft one')).toBe(true);
    await ana.page.keyboard.press('Enter');
    const chosen = panel(ana.page).getByRole('article', { name: 'Text of this version' });
    await expect.poll(async () => (await chosen.innerText()).trim()).toBe('Apples and pears');
    expect(await chosen.evaluate((article) => (article as HTMLElement).isContentEditable)).toBe(false);
    expect(await panel(ana.page).getByRole('heading', { level: 3 }).innerText()).toBe('Draft one');
    const sinceBefore = panel(ana.page).getByRole('group', { name: 'Changes since the version before' });
    await expect.poll(() => changed(sinceBefore, 'ins')).toBe(' and pears');
    expect(await changed(sinceBefore, 'del')).toBe('');
    expect(await sinceBefore.locator('ins').first().getAttribute('title')).toBe('Added by Ana');

    // Compared with the current text: the later typing is an insertion, in Ana's colour.
    await panel(ana.page).getByRole('button', { name: 'Compare with current' }).click();
    const toCurrent = panel(ana.page).getByRole('group', { name: 'Changes from this version to the current text' });
    await expect.poll(() => changed(toCurrent, 'ins')).toBe(' and plums');
    expect(await changed(toCurrent, 'del')).toBe('');
    const insertion = toCurrent.locator('ins').first();
    expect(await insertion.getAttribute('title')).toBe('Added by Ana');
    expect(await insertion.evaluate((element) => getComputedStyle(element).borderBottomColor)).toBe(rgb(preferredColor('Ana')));
    expect(await toCurrent.getByRole('list', { name: 'Authors' }).innerText()).toBe('Ana');

    // Restoring it: both editors show the text of Draft one, and the list names the restore.
    await panel(ana.page).getByRole('button', { name: 'Restore this version' }).click();
    await expect.poll(() => readText(ana.page)).toBe('Apples and pears');
    await expect.poll(() => readText(bo.page)).toBe('Apples and pears');
    await expect.poll(() => markdownOf(server, docId)).toBe('Apples and pears');
    // HIST4: the text before the restore is kept first, as an automatic version.
    await expect.poll(() => listedTitles(ana.page)).toEqual(['Restored', 'Edited', 'Draft one', 'Start']);
    expect(await panel(ana.page).getByRole('status').filter({ hasText: 'The text is back to “Draft one”.' }).count()).toBe(1);
  });

  it('[HIST6] lets a viewer read the versions but neither name nor restore one', async () => {
    const docId = await server.createDoc('Read only', 'Quinces');
    const named = await server.api(`/api/docs/${docId}/versions`, { method: 'POST', body: { name: 'Kept' } });
    expect(named.status).toBe(201);
    const { page } = await people.openDoc(docId, server.token('viewer', { sub: 'vi', name: 'Vi' }));
    await historyButton(page).click();
    await panel(page).getByRole('button', { name: /^Kept/ }).click();
    await expect.poll(async () => (await panel(page).getByRole('article', { name: 'Text of this version' }).innerText()).trim()).toBe('Quinces');
    expect(await panel(page).getByRole('button', { name: 'Compare with current' }).count()).toBe(1);
    expect(await panel(page).getByRole('button', { name: 'Restore this version' }).count()).toBe(0);
    expect(await panel(page).getByRole('textbox', { name: 'Version name' }).count()).toBe(0);
    expect(await panel(page).getByRole('button', { name: 'Name this version' }).count()).toBe(0);
  });

  it('shows its progress while the versions load, then says in words why they could not be had', async () => {
    const docId = await server.createDoc('Refused', 'Medlars');
    const { page } = await people.openDoc(docId, server.token('editor', { sub: 'ana', name: 'Ana' }));
    // The server's refusal as it sends one (shared/wire/errors.ts), answered in its place once the test lets it.
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    await page.route(`**/api/docs/${docId}/versions`, async (route) => {
      await answered;
      await route.fulfill({ status: 403, json: { error: { code: 'FORBIDDEN', message: 'You may not see the versions of this document.' } } });
    });
    await historyButton(page).click();
    const progress = panel(page).getByRole('progressbar', { name: 'Loading versions…' });
    await progress.waitFor();
    answer();
    await expect.poll(() => panel(page).getByRole('alert').innerText()).toBe('You may not see the versions of this document.');
    expect(await progress.count()).toBe(0);
  });
});
