import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { documentText, useBrowser } from '../helpers/browser.ts';
import { blocksOf } from '../helpers/runs.ts';

const server = useTestServer();
const people = useBrowser(server);

const serverMarkdown = async (id: string): Promise<string> => (await server.api(`/api/docs/${id}/markdown`)).body as string;

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
    // Enter does not split the cell: a GFM cell holds one line.
    await page.keyboard.press('Enter');
    await page.keyboard.type('2');
    await expect.poll(() => tableCells(page)).toEqual([['Item!', 'Qty', ''], ['Figs', '2', ''], ['', '', '']]);

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
});
