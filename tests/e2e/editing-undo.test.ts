import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { documentText, readText, useBrowser } from '../helpers/browser.ts';
import { docParts } from '../../shared/model/doc-layout.ts';

const server = useTestServer();
const people = useBrowser(server);

/** Types as a person does, one key every 40 ms. */
const typeSlowly = (page: Page, text: string) => page.keyboard.type(text, { delay: 40 });

/** The server's Markdown of document `id`, once it equals `expected` (or the last one read). */
async function serverMarkdown(id: string): Promise<string> {
  return (await server.api(`/api/docs/${id}/markdown`)).body as string;
}

describe('[EDIT1] undo takes back exactly one step', () => {
  it('takes back Enter and what was typed after it, leaving nothing behind on the server', async () => {
    const id = await server.createDoc('Undo Enter', 'Alpha paragraph.\n\nBeta paragraph.');
    const alice = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    const { page } = alice;
    await documentText(page).focus();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await typeSlowly(page, 'Next');
    await expect.poll(() => readText(page)).toBe('Alpha paragraph.\nNext\nBeta paragraph.');
    await page.keyboard.press('Control+z');
    await page.keyboard.press('Control+z');
    await expect.poll(() => readText(page)).toBe('Alpha paragraph.\nBeta paragraph.');
    await expect.poll(() => serverMarkdown(id)).toBe('Alpha paragraph.\n\nBeta paragraph.');
  });

  it('joins a split paragraph again', async () => {
    const id = await server.createDoc('Undo split', 'Alpha paragraph.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await documentText(page).focus();
    await page.keyboard.press('Control+Home');
    for (let i = 0; i < 'Alpha'.length; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await typeSlowly(page, 'Next');
    await expect.poll(() => readText(page)).toBe('Alpha\nNext paragraph.');
    for (let i = 0; i < 3; i++) await page.keyboard.press('Control+z');
    await expect.poll(() => readText(page)).toBe('Alpha paragraph.');
    await expect.poll(() => serverMarkdown(id)).toBe('Alpha paragraph.');
  });

  it('never duplicates a block whose type changed', async () => {
    const id = await server.createDoc('Undo heading', 'Alpha paragraph.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await documentText(page).focus();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Control+Alt+2');
    await typeSlowly(page, 'New ');
    await page.keyboard.press('Enter');
    await expect.poll(() => serverMarkdown(id)).toBe('## New \n\n## Alpha paragraph.');
    for (let i = 0; i < 12; i++) await page.keyboard.press('Control+z');
    await expect.poll(() => readText(page)).toBe('Alpha paragraph.');
    await expect.poll(() => serverMarkdown(id)).toBe('Alpha paragraph.');
  });
});

describe('[EDIT2] a keystroke lands where the caret is', () => {
  it('types at the caret of a document that has just loaded, replacing nothing', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const id = await server.createDoc('Just loaded', 'Alpha paragraph.');
      const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
      await documentText(page).focus();
      await page.keyboard.press('Control+Home');
      await page.keyboard.type('N');
      await page.keyboard.press('Enter');
      await page.keyboard.type('line');
      await expect.poll(() => readText(page)).toBe('N\nlineAlpha paragraph.');
      await page.context().close();
    }
  });

  it('types into a cleared document in order', async () => {
    const id = await server.createDoc('Cleared', 'Some text.\n\nMore text.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    for (let attempt = 0; attempt < 3; attempt++) {
      await documentText(page).focus();
      await page.keyboard.press('Control+a');
      await page.keyboard.press('Delete');
      await expect.poll(() => serverMarkdown(id)).toBe('');
      await typeSlowly(page, 'Hello world');
      await expect.poll(() => readText(page)).toBe('Hello world');
      await expect.poll(() => serverMarkdown(id)).toBe('Hello world');
    }
  });

  it('types in order into a document another peer has just emptied', async () => {
    const id = await server.createDoc('Emptied', 'Some text.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await documentText(page).focus();
    const peer = server.connect(id);
    await peer.synced;
    const content = docParts(peer.ydoc).content;
    peer.ydoc.transact(() => content.delete(0, content.length));
    await expect.poll(() => documentText(page).evaluate((editor) => editor.childElementCount)).toBe(0);
    await typeSlowly(page, 'Hello world');
    await expect.poll(() => readText(page)).toBe('Hello world');
    await expect.poll(() => serverMarkdown(id)).toBe('Hello world');
  });

  it('types a key pressed right after Enter into the new paragraph', async () => {
    const id = await server.createDoc('Fast Enter', 'First.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await documentText(page).focus();
    await page.keyboard.press('Control+End');
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('Enter');
      await page.keyboard.type(`line ${i}`);
    }
    await expect.poll(() => readText(page)).toBe('First.\nline 0\nline 1\nline 2');
  });
});
