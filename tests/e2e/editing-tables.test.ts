import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { documentText, useBrowser, waitForOfflineReady, waitForStatus } from '../helpers/browser.ts';
import { blocksOf } from '../helpers/runs.ts';

const server = useTestServer();
const people = useBrowser(server);

const serverMarkdown = async (id: string): Promise<string> => (await server.api(`/api/docs/${id}/markdown`)).body as string;

/** How many cells each row of the first table has, as `page` shows it. */
const rowWidths = (page: Page) => documentText(page).locator('table').first().evaluate((table) => [...table.querySelectorAll('tr')].map((row) => row.children.length));

/** The text of each cell of the first table, row by row, as `page` shows it (without others' carets). */
const tableCells = (page: Page) =>
  documentText(page)
    .locator('table')
    .first()
    .evaluate((table) => {
      const copy = table.cloneNode(true) as HTMLElement;
      copy.querySelectorAll('.ProseMirror-yjs-cursor, .ProseMirror-widget').forEach((el) => el.remove());
      return [...copy.querySelectorAll('tr')].map((row) => [...row.querySelectorAll('th, td')].map((cell) => (cell.textContent ?? '').replace(/\u2060/g, '')));
    });

describe('tables in the editor', () => {
  it('inserts a table, types across cells with Tab, adds a row and a column, undoes, and another person sees it live', async () => {
    const id = await server.createDoc('Tables', 'Shopping.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    const bob = await people.openDoc(id, server.token('editor', { name: 'Bob' }));
    await documentText(page).click();
    await page.keyboard.press('Control+End');
    await page.getByRole('button', { name: 'Insert table' }).click();
    await page.getByRole('toolbar', { name: 'Table' }).waitFor();

    await page.keyboard.type('Item');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Qty');
    // Shift+Tab goes back a cell and selects its text, as Tab does: typing replaces it.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.type('Item!');
    for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
    await page.keyboard.type('Figs');
    await page.keyboard.press('Tab');
    // Enter does not split the cell, nor Shift+Enter break its line: a GFM cell holds one line.
    await page.keyboard.press('Enter');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('2');
    await expect.poll(() => tableCells(page)).toEqual([['Item!', 'Qty', ''], ['Figs', '2', ''], ['', '', '']]);
    expect(await documentText(page).locator('table br:not(.ProseMirror-trailingBreak)').count()).toBe(0);

    // Tab in the last cell adds a row.
    for (let i = 0; i < 5; i++) await page.keyboard.press('Tab');
    await page.keyboard.type('Pears');
    await expect.poll(() => tableCells(page)).toEqual([['Item!', 'Qty', ''], ['Figs', '2', ''], ['', '', ''], ['Pears', '', '']]);

    // The caret is in the first column: the new one comes right of it.
    await page.getByRole('button', { name: 'Add column right' }).click();
    const widened = [['Item!', '', 'Qty', ''], ['Figs', '', '2', ''], ['', '', '', ''], ['Pears', '', '', '']];
    await expect.poll(() => tableCells(page)).toEqual(widened);
    await expect.poll(() => tableCells(bob.page)).toEqual(widened);
    await expect.poll(() => serverMarkdown(id)).toBe('Shopping.\n\n| Item! |  | Qty |  |\n| --- | --- | --- | --- |\n| Figs |  | 2 |  |\n|  |  |  |  |\n| Pears |  |  |  |');
    const blocks = await blocksOf(server, id);
    expect(blocks.map((block) => block.type)).toEqual(['paragraph', 'table', 'paragraph']);

    // The column is an undo step of its own: Ctrl+Z takes back only it, Ctrl+Shift+Z brings it back.
    await page.keyboard.press('Control+z');
    const narrowed = [['Item!', 'Qty', ''], ['Figs', '2', ''], ['', '', ''], ['Pears', '', '']];
    await expect.poll(() => tableCells(page)).toEqual(narrowed);
    await expect.poll(() => tableCells(bob.page)).toEqual(narrowed);
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(() => tableCells(bob.page)).toEqual(widened);

    await page.getByRole('button', { name: 'Delete table' }).click();
    await expect.poll(() => documentText(bob.page).locator('table').count()).toBe(0);
  });

  it('adds and deletes rows and columns from the keyboard, reaches the Table toolbar with Alt+F10, and another peer and the server get each change', async () => {
    const id = await server.createDoc('Table keys', 'Before.\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\nAfter.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    const bob = await people.openDoc(id, server.token('editor', { name: 'Bob' }));
    await documentText(page).getByText('1', { exact: true }).click();
    await page.getByRole('toolbar', { name: 'Table' }).waitFor();

    // Ctrl+Alt+ArrowDown adds a row below the caret's, Ctrl+Alt+ArrowRight a column right of it.
    await page.keyboard.press('Control+Alt+ArrowDown');
    await page.keyboard.press('Control+Alt+ArrowRight');
    const grown = [['a', '', 'b'], ['1', '', '2'], ['', '', '']];
    await expect.poll(() => tableCells(page)).toEqual(grown);
    await expect.poll(() => tableCells(bob.page)).toEqual(grown);
    await expect.poll(() => serverMarkdown(id)).toBe('Before.\n\n| a |  | b |\n| --- | --- | --- |\n| 1 |  | 2 |\n|  |  |  |\n\nAfter.');

    // Ctrl+Shift+Backspace deletes the caret's row; with Alt, its column.
    await page.keyboard.type('x');
    await page.keyboard.press('Control+Shift+Backspace');
    await expect.poll(() => tableCells(bob.page)).toEqual([['a', '', 'b'], ['', '', '']]);
    await documentText(page).getByText('b', { exact: true }).click();
    await page.keyboard.press('Control+Alt+Shift+Backspace');
    await expect.poll(() => tableCells(bob.page)).toEqual([['a', ''], ['', '']]);
    await expect.poll(() => serverMarkdown(id)).toBe('Before.\n\n| a |  |\n| --- | --- |\n|  |  |\n\nAfter.');

    // Alt+F10 puts the focus on the Table toolbar; Escape goes back to the text, where typing lands at the caret.
    const table = page.getByRole('toolbar', { name: 'Table' });
    await page.keyboard.press('Alt+F10');
    await expect.poll(() => table.evaluate((bar) => bar.contains(document.activeElement))).toBe(true);
    await page.keyboard.press('Escape');
    await page.keyboard.type('y');
    // (Deleting the last column left the caret in the first cell of the row below.)
    await expect.poll(() => tableCells(bob.page)).toEqual([['a', ''], ['y', '']]);
    // Tab walks the menu's buttons; Enter on `Delete table` removes it.
    await page.keyboard.press('Alt+F10');
    for (let i = 0; i < 4; i++) await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Delete table');
    await page.keyboard.press('Enter');
    await expect.poll(() => serverMarkdown(id)).toBe('Before.\n\nAfter.');
    await expect.poll(() => documentText(bob.page).locator('table').count()).toBe(0);
  });

  it('deletes a row and a column with the Table toolbar\'s buttons, and the server gets the table without them', async () => {
    const id = await server.createDoc('Table buttons', '| a | b | c |\n| --- | --- | --- |\n| 1 | 2 | 3 |\n| 4 | 5 | 6 |');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await documentText(page).getByText('2', { exact: true }).click();
    await page.getByRole('button', { name: 'Delete row' }).click();
    await expect.poll(() => serverMarkdown(id)).toBe('| a | b | c |\n| --- | --- | --- |\n| 4 | 5 | 6 |');
    await documentText(page).getByText('5', { exact: true }).click();
    await page.getByRole('button', { name: 'Delete column' }).click();
    await expect.poll(() => serverMarkdown(id)).toBe('| a | c |\n| --- | --- |\n| 4 | 6 |');
    expect(await tableCells(page)).toEqual([['a', 'c'], ['4', '6']]);
  });

  it('[EDIT4] pastes a Markdown table as a table', async () => {
    const id = await server.createDoc('Paste table', 'Before.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await page.evaluate((copied) => navigator.clipboard.writeText(copied), '| a | b |\n|---|---|\n| 1 | 2 \\| 3 |');
    await documentText(page).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+v');
    await expect.poll(() => tableCells(page)).toEqual([['a', 'b'], ['1', '2 | 3']]);
    await expect.poll(() => serverMarkdown(id)).toMatch(/^Before\.\n\n\| a \| b \|\n\| --- \| --- \|\n\| 1 \| 2 \\\| 3 \|/);
  });

  it('mends a table left ragged by a concurrent row and column once, by the next person to edit it, never by every peer at once', async () => {
    const id = await server.createDoc('Concurrent table', '| a | b |\n| --- | --- |\n| 1 | 2 |');
    const alice = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    const bob = await people.openDoc(id, server.token('editor', { name: 'Bob' }));
    for (const person of [alice, bob]) {
      await waitForStatus(person.page, 'Connected');
      await waitForOfflineReady(person.page);
    }
    await server.stop();
    for (const person of [alice, bob]) await waitForStatus(person.page, 'Offline');
    await documentText(alice.page).getByText('1', { exact: true }).click();
    await alice.page.getByRole('button', { name: 'Add column right' }).click();
    await documentText(bob.page).getByText('2', { exact: true }).click();
    await bob.page.getByRole('button', { name: 'Add row below' }).click();
    await expect.poll(() => rowWidths(alice.page)).toEqual([3, 3]);
    await expect.poll(() => rowWidths(bob.page)).toEqual([2, 2, 2]);

    await server.restart();
    // Merged: Bob's row lacks Alice's column. Receiving it mends nothing, on either side.
    await expect.poll(() => rowWidths(alice.page), { timeout: 15_000 }).toEqual([3, 3, 2]);
    await expect.poll(() => rowWidths(bob.page), { timeout: 15_000 }).toEqual([3, 3, 2]);
    // The next edit of the table mends it, once.
    await documentText(alice.page).getByText('a', { exact: true }).click();
    await alice.page.keyboard.type('x');
    await expect.poll(() => rowWidths(bob.page)).toEqual([3, 3, 3]);
    await expect.poll(() => rowWidths(alice.page)).toEqual([3, 3, 3]);
  });
});
