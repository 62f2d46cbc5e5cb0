import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { documentText, readText, useBrowser, waitForStatus } from '../helpers/browser.ts';
import { blocksOf } from '../helpers/runs.ts';

const server = useTestServer();
const people = useBrowser(server);

const serverMarkdown = async (id: string): Promise<string> => (await server.api(`/api/docs/${id}/markdown`)).body as string;

/** Puts `text` on the person's clipboard as plain text, as copying it from a text editor does. */
async function copyText(page: Page, text: string): Promise<void> {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  await page.evaluate((copied) => navigator.clipboard.writeText(copied), text);
}

const pastedMarkdown = ['# Plan', '', 'Some **bold** and *em* text with `code` and [a link](https://example.com/a).', '', '- first', '- second', '', '```', 'let x = 1;', '```'].join('\n');

describe('[EDIT4] pasting Markdown text', () => {
  it('turns it into formatting with fresh block ids, and one Ctrl+Z takes the paste back', async () => {
    const id = await server.createDoc('Paste Markdown', 'Before.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    const before = await blocksOf(server, id);
    await copyText(page, pastedMarkdown);
    await documentText(page).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Intro: ');
    await page.keyboard.press('Control+v');
    const pasted = 'Before.\n\nIntro: \n\n# Plan\n\nSome **bold** and *em* text with `code` and [a link](https://example.com/a).\n\n* first\n* second\n\n```\nlet x = 1;\n```';
    await expect.poll(() => serverMarkdown(id)).toBe(pasted.replace('Intro: \n\n# Plan', 'Intro: Plan'));
    const blocks = await blocksOf(server, id);
    const topLevel = blocks.filter((block) => block.parentId === null);
    expect(topLevel.map((block) => block.type)).toEqual(['paragraph', 'paragraph', 'paragraph', 'bullet_list', 'code_block']);
    // The list's items and their paragraphs are blocks of their own (OP12), with ids as fresh.
    expect(blocks.filter((block) => block.parentId !== null).map((block) => block.type)).toEqual(['list_item', 'paragraph', 'list_item', 'paragraph']);
    expect(blocks[0].id).toBe(before[0].id);
    expect(new Set(blocks.map((block) => block.id)).size).toBe(blocks.length);

    await page.keyboard.press('Control+z');
    await expect.poll(() => serverMarkdown(id)).toBe('Before.\n\nIntro: ');
  });

  it('waits for the Markdown parser when the paste comes before it has loaded', async () => {
    const id = await server.createDoc('Paste early', 'Before.');
    let release: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    const { page } = await people.open(`/d/${id}`, server.token('editor', { name: 'Alice' }), async ({ context }) => {
      await context.route(/\/assets\/markdown-paste-[^/]*\.js$/, async (route) => {
        held = true;
        await arrived;
        await route.continue();
      });
    });
    await waitForStatus(page, 'Connected');
    await expect.poll(() => held).toBe(true);
    await copyText(page, '## Section\n\nText *here*.');
    await documentText(page).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+v');
    release();
    await expect.poll(() => serverMarkdown(id)).toBe('Before.\n\n## Section\n\nText *here*.');
  });

  it('keeps a heading a heading when pasted into an empty paragraph', async () => {
    const id = await server.createDoc('Paste heading', 'Before.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await copyText(page, '## Section\n\nText *here*.');
    await documentText(page).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+v');
    await expect.poll(() => serverMarkdown(id)).toBe('Before.\n\n## Section\n\nText *here*.');
  });

  it('pastes the Markdown source as it is with Ctrl+Shift+V', async () => {
    const id = await server.createDoc('Paste plain', 'Before.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await copyText(page, '# Not a heading\n\n**not bold**');
    await documentText(page).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+Shift+v');
    await expect.poll(() => readText(page)).toBe('Before.\n# Not a heading\n**not bold**');
    expect(await documentText(page).locator('h1, strong').count()).toBe(0);
  });

  it('pastes ordinary text as it is, line by line', async () => {
    const id = await server.createDoc('Paste text', 'Before.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await copyText(page, 'snake_case_name and 2 * 3\nsecond line');
    await documentText(page).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+v');
    await expect.poll(() => readText(page)).toBe('Before.\nsnake_case_name and 2 * 3\nsecond line');
  });

  it('keeps pasted HTML as HTML, and a block copied within the text never takes the original\'s id', async () => {
    const id = await server.createDoc('Paste HTML', 'Alpha.\n\nBeta.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    const before = await blocksOf(server, id);
    // What the editor puts on the clipboard when the person copies, taken from the copy event and
    // pasted back with a paste event like the HTML below: a native paste right after the copy
    // did not always arrive when other browser tests ran alongside.
    await page.evaluate(() => {
      document.addEventListener('copy', (event) => {
        const data = event.clipboardData;
        (window as unknown as { copied: Record<string, string> }).copied = { html: data?.getData('text/html') ?? '', text: data?.getData('text/plain') ?? '' };
      });
    });
    await expect.poll(() => readText(page)).toBe('Alpha.\nBeta.');
    await documentText(page).click();
    await expect.poll(() => documentText(page).evaluate((editor) => editor.contains(document.activeElement))).toBe(true);
    await page.keyboard.press('Control+a');
    await expect.poll(() => documentText(page).evaluate((editor) => editor.contains(getSelection()?.anchorNode ?? null) && getSelection()?.toString())).toBe('Alpha.\n\nBeta.');
    await page.keyboard.press('Control+c');
    const copied = await page.evaluate(() => (window as unknown as { copied?: { html: string; text: string } }).copied);
    expect(copied?.html).toContain('data-block-id');
    // The person clicks at the start of the text to paste there, and sees the caret there.
    await documentText(page).locator('p').first().click({ position: { x: 1, y: 4 } });
    await page.keyboard.press('Home');
    await expect
      .poll(() => documentText(page).evaluate((editor) => {
        const selection = getSelection();
        return selection !== null && selection.isCollapsed && editor.contains(selection.anchorNode);
      }))
      .toBe(true);
    await documentText(page).evaluate((target, { html, text }) => {
      const data = new DataTransfer();
      data.setData('text/html', html);
      data.setData('text/plain', text);
      target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, copied!);
    await expect.poll(() => readText(page)).toBe('Alpha.\nBeta.\nAlpha.\nBeta.');
    await expect.poll(async () => (await blocksOf(server, id)).length).toBe(4);
    const blocks = await blocksOf(server, id);
    // The copies come first; the blocks they were copied from keep their ids.
    expect([blocks[2].id, blocks[3].id]).toEqual([before[0].id, before[1].id]);
    expect(new Set(blocks.map((block) => block.id)).size).toBe(4);

    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await documentText(page).evaluate((target) => {
      const data = new DataTransfer();
      data.setData('text/html', '<h2>From a page</h2><p>with <em>style</em></p>');
      data.setData('text/plain', 'From a page\n\nwith style');
      target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    });
    await expect.poll(() => serverMarkdown(id)).toBe('Alpha.\n\nBeta.\n\nAlpha.\n\nBeta.\n\n## From a page\n\nwith *style*');
  });
});
