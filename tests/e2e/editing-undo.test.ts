import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { documentText, readText, useBrowser } from '../helpers/browser.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { agentApi, replaceOp, sentRun } from '../helpers/runs.ts';

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

describe('[EDIT1] undo is one person\'s own', () => {
  it('takes back a Markdown shortcut with Backspace, leaving what was typed', async () => {
    const id = await server.createDoc('Shortcut', 'Alpha paragraph.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await documentText(page).focus();
    await page.keyboard.press('Control+Home');
    await typeSlowly(page, '- ');
    await expect.poll(() => documentText(page).locator('ul').count()).toBe(1);
    await page.keyboard.press('Backspace');
    await expect.poll(() => documentText(page).locator('ul').count()).toBe(0);
    await expect.poll(() => readText(page)).toBe('- Alpha paragraph.');
    await expect.poll(() => serverMarkdown(id)).toBe('\\- Alpha paragraph.');
  });

  it('never takes back what another person wrote', async () => {
    const id = await server.createDoc('Two writers', 'Shared start.');
    const alice = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    const bob = await people.openDoc(id, server.token('editor', { name: 'Bob' }));
    await documentText(alice.page).focus();
    await alice.page.keyboard.press('Control+End');
    await typeSlowly(alice.page, ' Alice.');
    await expect.poll(() => readText(bob.page)).toBe('Shared start. Alice.');
    await documentText(bob.page).focus();
    await bob.page.keyboard.press('Control+Home');
    await typeSlowly(bob.page, 'Bob: ');
    await bob.page.keyboard.press('Control+End');
    await bob.page.keyboard.press('Enter');
    await typeSlowly(bob.page, 'Second line.');
    await expect.poll(() => readText(alice.page)).toBe('Bob: Shared start. Alice.\nSecond line.');
    for (let i = 0; i < 5; i++) await alice.page.keyboard.press('Control+z');
    await expect.poll(() => serverMarkdown(id)).toBe('Bob: Shared start.\n\nSecond line.');
    await expect.poll(() => readText(bob.page)).toBe('Bob: Shared start.\nSecond line.');
  });
});

describe('[EDIT2] a keystroke lands where the caret is', () => {
  it('keeps typing in place while an agent changes another block and its review appears, and undo leaves the agent\'s change', async () => {
    const run = await sentRun(server, 'First block.\n\nSecond block.', ['rewrite it']);
    const { page } = await people.openDoc(run.docId, server.token('editor', { name: 'Alice' }));
    await documentText(page).focus();
    await page.keyboard.press('Control+End');
    const bot = agentApi(server, server.token('agent'));
    const agentWorks = (async () => {
      expect((await bot.claim(run.runId)).status).toBe(200);
      expect((await bot.ops(run.runId, 'k1', [replaceOp(run.blocks[0], 'Rewritten first block.', run.instructionIds[0])])).status).toBe(200);
      expect((await bot.complete(run.runId)).status).toBe(200);
    })();
    await typeSlowly(page, ' typed while');
    await agentWorks;
    await page.locator('sup.change-badge').waitFor();
    await typeSlowly(page, ' the agent works');
    await expect.poll(() => readText(page)).toMatch(/^Rewritten first block\.(1)?\nSecond block\. typed while the agent works$/);
    for (let i = 0; i < 12; i++) await page.keyboard.press('Control+z');
    await expect.poll(() => serverMarkdown(run.docId)).toBe('Rewritten first block.\n\nSecond block.');
  });

  it('keeps what a person types together while another types before it in the same paragraph', async () => {
    const id = await server.createDoc('Same paragraph', 'Shared start.');
    const alice = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    const bob = await people.openDoc(id, server.token('editor', { name: 'Bob' }));
    await documentText(alice.page).focus();
    await alice.page.keyboard.press('Control+End');
    await documentText(bob.page).focus();
    await bob.page.keyboard.press('Control+Home');
    await Promise.all([typeSlowly(alice.page, ' and Alice at the end'), typeSlowly(bob.page, 'Bob at the start, ')]);
    const expected = 'Bob at the start, Shared start. and Alice at the end';
    await expect.poll(() => readText(alice.page)).toBe(expected);
    await expect.poll(() => readText(bob.page)).toBe(expected);
    await expect.poll(() => serverMarkdown(id)).toBe(expected);
  });

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

  it('puts the caret after the last word on a double click below the text', async () => {
    const id = await server.createDoc('Below', 'One line.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    const box = (await documentText(page).boundingBox())!;
    const line = (await documentText(page).locator('p').first().boundingBox())!;
    const below = { x: box.x + box.width / 2, y: Math.min(box.y + box.height - 4, line.y + line.height + 40) };
    expect(below.y).toBeGreaterThan(line.y + line.height);
    await page.mouse.dblclick(below.x, below.y);
    await page.keyboard.type(' Two.');
    await expect.poll(() => readText(page)).toBe('One line. Two.');
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

describe('[EDIT2] the page stays free of errors', () => {
  it('leaves a document through All documents without an error', async () => {
    const id = await server.createDoc('Leave me', 'Some text.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await documentText(page).focus();
    await page.keyboard.press('Control+End');
    await typeSlowly(page, ' more');
    await page.getByRole('link', { name: 'All documents' }).click();
    await page.getByRole('button', { name: 'New document' }).waitFor();
    // A barrier: timers the editor's plugins queued before it was destroyed have run by the time
    // a timer queued now runs; any error they throw is reported by the browser helper.
    await page.evaluate(() => new Promise((resolve) => setTimeout(() => setTimeout(resolve, 0), 0)));
  });
});

