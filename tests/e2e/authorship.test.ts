import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { documentText, typeAtEnd, useBrowser } from '../helpers/browser.ts';
import { markdownOf } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

const server = useTestServer();
const people = useBrowser(server);

/** Moves the mouse over the middle of the first occurrence of `text` in the document. */
async function hover(page: Page, text: string): Promise<void> {
  const at = await documentText(page).evaluate((editor, wanted) => {
    const walker = document.createTreeWalker(editor, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const index = node.textContent?.indexOf(wanted) ?? -1;
      if (index < 0) continue;
      const range = document.createRange();
      range.setStart(node, index);
      range.setEnd(node, index + wanted.length);
      const rect = range.getBoundingClientRect();
      return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
    }
    throw new Error(`No text ${wanted}`);
  }, text);
  await page.mouse.move(at.x, at.y);
}

/** The caret's offset in its text node. */
function caretOffset(page: Page): Promise<number> {
  return page.evaluate(() => getSelection()?.anchorOffset ?? -1);
}

describe('Show authors', () => {
  it('[WHO7] says who wrote the text under the mouse and at the caret, for two people typing', async () => {
    const docId = await server.createDoc('Two writers', 'hello');
    const ana = await people.openDoc(docId, server.token('editor', { sub: 'ana', name: 'Ana' }));
    await typeAtEnd(ana.page, ' from Ana');
    await expect.poll(() => markdownOf(server, docId)).toBe('hello from Ana');
    const bo = await people.openDoc(docId, server.token('editor', { sub: 'bo', name: 'Bo' }));
    await typeAtEnd(bo.page, ' and Bo');
    await expect.poll(() => markdownOf(server, docId)).toBe('hello from Ana and Bo');

    const toggle = bo.page.getByRole('button', { name: 'Show authors' });
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    const note = bo.page.locator('.author-note');

    // The mouse over Ana's words.
    await hover(bo.page, 'Ana');
    await expect.poll(() => note.textContent()).toBe('Written by Ana');
    await hover(bo.page, 'hello');
    await expect.poll(() => note.textContent()).toBe('Written by Owner');

    // The keyboard: the mouse away, the caret in Bo's words.
    await bo.page.mouse.move(5, 5);
    await documentText(bo.page).focus();
    await bo.page.keyboard.press('Control+End');
    await bo.page.keyboard.press('ArrowLeft');
    await expect.poll(() => note.textContent()).toBe('Written by Bo');
    // Back into Ana's words (` from Ana` ends at 14): the note follows the caret.
    for (let i = 0; i < 20 && (await caretOffset(bo.page)) > 12; i++) await bo.page.keyboard.press('ArrowLeft');
    await expect.poll(() => note.textContent()).toBe('Written by Ana');
  });
});
