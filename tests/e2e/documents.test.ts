import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { documentText, pinAnnotation, readText, useBrowser, waitForStatus } from '../helpers/browser.ts';

/*
 * The catalogue in the app (shared/PROTOCOL.md CAT1–CAT6), as a person uses it: a new
 * document's title, card times, the search box, Delete with Undo, Duplicate, Download and
 * Import.
 */

const server = useTestServer();
const people = useBrowser(server);

const titleField = (page: Page) => page.getByRole('textbox', { name: 'Title' });
const listed = (page: Page) => page.getByRole('list', { name: 'Documents' }).getByRole('listitem');
const row = (page: Page, title: string) => listed(page).filter({ has: page.getByRole('link', { name: title, exact: true }) });
const listedTitles = (page: Page) => page.getByRole('list', { name: 'Documents' }).getByRole('link').allInnerTexts();

describe('documents in the app', () => {
  it('[CAT1] gives a new document an empty title with the placeholder Untitled, which follows the first line until someone sets one', async () => {
    const { page } = await people.open('/', server.ownerToken);
    await page.getByRole('button', { name: 'New document' }).click();
    await waitForStatus(page, 'Connected');
    await expect.poll(() => titleField(page).getAttribute('placeholder')).toBe('Untitled');
    expect(await titleField(page).inputValue()).toBe('');

    await documentText(page).click();
    await page.keyboard.type('Garden plan');
    await expect.poll(() => titleField(page).getAttribute('placeholder')).toBe('Garden plan');
    expect(await titleField(page).inputValue()).toBe('');
    await expect.poll(() => page.title()).toBe('Garden plan · Tandem');

    // Naming it: the typed title replaces the placeholder instead of adding to a word "Untitled".
    await titleField(page).click();
    await page.keyboard.type('Plans');
    expect(await titleField(page).inputValue()).toBe('Plans');
    await documentText(page).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' more');
    await expect.poll(() => page.title()).toBe('Plans · Tandem');
    const id = new URL(page.url()).pathname.split('/').pop()!;
    await expect.poll(async () => (await server.api(`/api/docs/${id}`)).body.title).toBe('Plans');
  });

  it('[CAT1] treats a document titled "Untitled" by older versions as having no title', async () => {
    const id = await server.createDoc('Untitled', 'Quince jam');
    const { page } = await people.openDoc(id, server.ownerToken);
    await expect.poll(() => titleField(page).getAttribute('placeholder')).toBe('Quince jam');
    expect(await titleField(page).inputValue()).toBe('');
    await titleField(page).click();
    await page.keyboard.type('Garden');
    expect(await titleField(page).inputValue()).toBe('Garden');
  });

  it('shows when a comment was written, relative, with the full time in its tooltip', async () => {
    const id = await server.createDoc('Timed', 'Some words to comment on.');
    const { page } = await people.openDoc(id, server.ownerToken);
    const before = Date.now();
    const comment = await pinAnnotation(page, 'comment', 'words', 'When was this?');
    const time = page.locator(`.annotation-card[data-annotation-id="${comment}"] .card-head time`);
    expect(await time.innerText()).toBe('just now');
    const at = Date.parse((await time.getAttribute('datetime'))!);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(await time.getAttribute('title')).toMatch(/\d/);
  });

  it('shows when each reply was written, beside its author, with the full time in its tooltip', async () => {
    const id = await server.createDoc('Replied', 'Some words to reply on.');
    const { page } = await people.openDoc(id, server.ownerToken);
    const comment = await pinAnnotation(page, 'comment', 'words', 'Which words?');
    const card = page.locator(`.annotation-card[data-annotation-id="${comment}"]`);
    await card.getByRole('button', { name: 'Reply' }).click();
    await card.getByRole('textbox', { name: 'Reply' }).fill('These ones.');
    await card.getByRole('textbox', { name: 'Reply' }).press('Enter');
    const reply = card.getByRole('list', { name: 'Replies' }).getByRole('listitem');
    await expect.poll(() => reply.innerText()).toContain('These ones.');

    const [note] = (await server.api(`/api/docs/${id}`)).body.annotations as { turns: { at: number }[] }[];
    const [asked, answered] = note.turns.map((turn) => new Date(turn.at).toISOString());
    expect(answered).not.toBe(asked);
    const time = reply.locator('time');
    // The reply's own time, not the comment's.
    expect(await time.getAttribute('datetime')).toBe(answered);
    expect(await card.locator('.card-head time').getAttribute('datetime')).toBe(asked);
    expect(await time.innerText()).toBe('just now');
    expect(await time.getAttribute('title')).toMatch(/\d/);
    expect((await reply.innerText()).trim()).toMatch(/^Owner\s+just now\s+These ones\.$/);
  });

  it('[CAT2] finds documents with the search box', async () => {
    await server.createDoc('Walnut orchard', 'trees');
    await server.createDoc('Harvest notes', 'The walnuts came late.');
    await server.createDoc('Cherry', 'blossom');
    const { page } = await people.open('/', server.ownerToken);
    await row(page, 'Cherry').waitFor();
    await page.getByRole('searchbox', { name: 'Search documents' }).fill('walnut');
    await expect.poll(() => listedTitles(page)).toEqual(['Walnut orchard', 'Harvest notes']);
    await page.getByRole('searchbox', { name: 'Search documents' }).fill('');
    await row(page, 'Cherry').waitFor();
  });

  it('[CAT3] [CAT4] deletes a document with an Undo, and duplicates one', async () => {
    await server.createDoc('Plum tart', 'Plums and sugar.');
    const { page } = await people.open('/', server.ownerToken);
    await row(page, 'Plum tart').getByRole('button', { name: 'Delete' }).click();
    await row(page, 'Plum tart').waitFor({ state: 'detached' });
    const toast = page.getByRole('status').filter({ hasText: 'moved to the trash' });
    await toast.getByRole('button', { name: 'Undo' }).click();
    await row(page, 'Plum tart').waitFor();
    await toast.waitFor({ state: 'detached' });

    await row(page, 'Plum tart').getByRole('button', { name: 'Duplicate' }).click();
    await row(page, 'Copy of Plum tart').waitFor();
    await row(page, 'Copy of Plum tart').getByRole('link').click();
    await waitForStatus(page, 'Connected');
    await expect.poll(() => readText(page)).toBe('Plums and sugar.');
  });

  it('[CAT5] downloads a document as Markdown, HTML and Word', async () => {
    const id = await server.createDoc('Recipe', '# Figs\n\nRipe *figs*.');
    const { page } = await people.openDoc(id, server.ownerToken);
    const files: Record<string, string> = {};
    for (const [label, extension] of [['Markdown', 'md'], ['HTML', 'html'], ['Word', 'docx']]) {
      await page.getByRole('button', { name: 'Download' }).click();
      const downloading = page.waitForEvent('download');
      await page.getByRole('menuitem', { name: label }).click();
      const download = await downloading;
      expect(download.suggestedFilename()).toBe(`Recipe.${extension}`);
      files[extension] = readFileSync((await download.path())!, 'latin1');
    }
    expect(files.md).toBe('# Figs\n\nRipe *figs*.');
    expect(files.html).toContain('<h1>Figs</h1>');
    expect(files.docx.startsWith('PK')).toBe(true);
  });

  it('[CAT6] imports a Markdown file chosen with the file picker, its GFM table as a table', async () => {
    const id = await server.createDoc('Import here', 'First line.');
    const { page } = await people.openDoc(id, server.ownerToken);
    const bob = await people.openDoc(id, server.token('editor', { name: 'Bob' }));
    const choosing = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Import' }).click();
    const chooser = await choosing;
    await chooser.setFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('## Imported\n\n| a | b |\n|---|---|\n| 1 | 2 |') });
    const cells = (reader: Page) => documentText(reader).locator('table th, table td').allTextContents();
    await expect.poll(() => cells(page)).toEqual(['a', 'b', '1', '2']);
    // Everyone on the document receives the import live.
    await expect.poll(() => cells(bob.page)).toEqual(['a', 'b', '1', '2']);
    await page.getByRole('status').filter({ hasText: 'Imported notes.md.' }).waitFor();
    expect(await readText(page)).toMatch(/^First line\.\nImported\n/);
  });

  it('[CAT6] imports an HTML file through the sanitizing parse', async () => {
    const id = await server.createDoc('', '');
    const { page } = await people.openDoc(id, server.ownerToken);
    const choosing = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Import' }).click();
    await (await choosing).setFiles({ name: 'page.html', mimeType: 'text/html', buffer: Buffer.from('<h1>Web page</h1><p>Hello <a href="javascript:alert(1)">there</a></p><script>alert(1)</script>') });
    await page.getByRole('status').filter({ hasText: 'Imported page.html.' }).waitFor();
    await expect.poll(() => readText(page)).toBe('Web page\nHello there');
    expect(await documentText(page).locator('a').count()).toBe(0);
    await expect.poll(() => titleField(page).getAttribute('placeholder')).toBe('Web page');
  });

  it('[CAT3] shows the trash with when each document can be restored until, and restores one from it', async () => {
    await server.createDoc('Pear cake', 'Pears.');
    const { page } = await people.open('/', server.ownerToken);
    await row(page, 'Pear cake').getByRole('button', { name: 'Delete' }).click();
    await row(page, 'Pear cake').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Trash' }).click();
    const trash = page.getByRole('list', { name: 'In the trash' });
    const trashed = trash.getByRole('listitem').filter({ hasText: 'Pear cake' });
    await trashed.waitFor();
    expect(await trashed.innerText()).toContain('can be restored until');
    await trashed.getByRole('button', { name: 'Restore Pear cake' }).focus();
    await page.keyboard.press('Enter');
    await trashed.waitFor({ state: 'detached' });
    await row(page, 'Pear cake').waitFor();
    expect((await server.api('/api/docs?trash=1')).body.map((doc: { title: string }) => doc.title)).not.toContain('Pear cake');
  });

  it('offers no Delete, Duplicate or Import to a viewer', async () => {
    const id = await server.createDoc('Read only', 'x');
    const viewer = server.token('viewer');
    const { page } = await people.open('/', viewer);
    await row(page, 'Read only').waitFor();
    expect(await row(page, 'Read only').getByRole('button').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Trash' }).count()).toBe(0);
    const opened = await people.openDoc(id, viewer);
    await opened.page.getByRole('button', { name: 'Download' }).waitFor();
    expect(await opened.page.getByRole('button', { name: 'Import' }).count()).toBe(0);
  });
});
