import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { documentText, readText, selectText, useBrowser } from '../helpers/browser.ts';

const server = useTestServer();
const people = useBrowser(server);

const serverMarkdown = async (id: string): Promise<string> => (await server.api(`/api/docs/${id}/markdown`)).body as string;
const findBox = (page: Page) => page.getByRole('textbox', { name: 'Find', exact: true });
const replaceBox = (page: Page) => page.getByRole('textbox', { name: 'Replace', exact: true });
const matchCount = (page: Page) => page.locator('.find-status').innerText();
/** The text of every highlighted match, and of the selected one. */
const highlights = (page: Page) =>
  documentText(page).evaluate((root) => ({
    all: Array.from(root.querySelectorAll('.ProseMirror-search-match, .ProseMirror-active-search-match'), (el) => el.textContent),
    active: Array.from(root.querySelectorAll('.ProseMirror-active-search-match'), (el) => el.textContent),
  }));

const text = 'The cat sat.\n\nA Cat ran after the other cat.\n\nNo dogs here.';

describe('[FIND1] find in the document', () => {
  it('opens with Ctrl+F, counts and highlights matches, moves with Enter and Shift+Enter, closes with Escape', async () => {
    const id = await server.createDoc('Find', text);
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await documentText(page).click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Control+f');
    await expect.poll(() => findBox(page).evaluate((input) => input === document.activeElement)).toBe(true);
    await page.keyboard.type('cat');
    await expect.poll(() => matchCount(page)).toBe('1 of 3');
    expect(await highlights(page)).toEqual({ all: ['cat', 'Cat', 'cat'], active: ['cat'] });
    await page.keyboard.press('Enter');
    await expect.poll(() => matchCount(page)).toBe('2 of 3');
    await page.keyboard.press('Enter');
    await expect.poll(() => matchCount(page)).toBe('3 of 3');
    await page.keyboard.press('Enter');
    await expect.poll(() => matchCount(page)).toBe('1 of 3');
    await page.keyboard.press('Shift+Enter');
    await expect.poll(() => matchCount(page)).toBe('3 of 3');
    await page.getByRole('button', { name: 'Previous match' }).click();
    await expect.poll(() => matchCount(page)).toBe('2 of 3');
    await page.keyboard.type('s');
    await expect.poll(() => matchCount(page)).toBe('No matches');

    await findBox(page).press('Escape');
    await findBox(page).waitFor({ state: 'detached' });
    await expect.poll(() => documentText(page).evaluate((editor) => editor.contains(document.activeElement))).toBe(true);
    expect((await highlights(page)).all).toEqual([]);
  });

  it('searches for the selected text when Ctrl+F is pressed over it', async () => {
    const id = await server.createDoc('Find selected', text);
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await selectText(page, 'other');
    await page.keyboard.press('Control+f');
    await expect.poll(() => findBox(page).inputValue()).toBe('other');
    await expect.poll(() => matchCount(page)).toBe('1 of 1');
    await expect.poll(() => findBox(page).evaluate((input) => input === document.activeElement)).toBe(true);
  });

  it('offers a viewer find without replace', async () => {
    const id = await server.createDoc('Find viewer', text);
    const { page } = await people.openDoc(id, server.token('viewer', { name: 'Vera' }));
    await documentText(page).click();
    await page.keyboard.press('Control+f');
    await findBox(page).fill('cat');
    await expect.poll(() => matchCount(page)).toBe('1 of 3');
    expect(await replaceBox(page).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Replace all' }).count()).toBe(0);
  });
});

describe('[FIND1] replace', () => {
  it('replaces one match, then all, as the person\'s own undoable edit that another person sees', async () => {
    const id = await server.createDoc('Replace', text);
    const alice = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    const bob = await people.openDoc(id, server.token('editor', { name: 'Bob' }));
    const { page } = alice;
    await documentText(page).click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Control+f');
    await page.keyboard.type('cat');
    await replaceBox(page).fill('dog');
    await page.getByRole('button', { name: 'Replace', exact: true }).click();
    await expect.poll(() => readText(bob.page)).toBe('The dog sat.\nA Cat ran after the other cat.\nNo dogs here.');
    await expect.poll(() => matchCount(page)).toBe('1 of 2');

    await page.getByRole('button', { name: 'Replace all', exact: true }).click();
    await expect.poll(() => readText(bob.page)).toBe('The dog sat.\nA dog ran after the other dog.\nNo dogs here.');
    await expect.poll(() => serverMarkdown(id)).toBe('The dog sat.\n\nA dog ran after the other dog.\n\nNo dogs here.');
    await expect.poll(() => matchCount(page)).toBe('No matches');

    // Text Bob types meanwhile is found as it arrives.
    await documentText(bob.page).click();
    await bob.page.keyboard.press('Control+End');
    await bob.page.keyboard.type(' A cat.');
    await expect.poll(() => matchCount(page)).toBe('1 match');

    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+z');
    await expect.poll(() => readText(bob.page)).toBe('The dog sat.\nA Cat ran after the other cat.\nNo dogs here. A cat.');
    await page.keyboard.press('Control+z');
    await expect.poll(() => serverMarkdown(id)).toBe('The cat sat.\n\nA Cat ran after the other cat.\n\nNo dogs here. A cat.');
  });
});
