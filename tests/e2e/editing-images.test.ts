import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { clickBefore, documentText, useBrowser, waitForOfflineReady, waitForStatus } from '../helpers/browser.ts';
import { svgImage, tinyPng } from '../helpers/images.ts';

/* Images in the editor (shared/PROTOCOL.md IMG6): inserted from the toolbar, pasted, seen by others live, and an image that fails to load. */

const server = useTestServer();
const people = useBrowser(server);

const serverMarkdown = async (id: string): Promise<string> => (await server.api(`/api/docs/${id}/markdown`)).body as string;
const assetPattern = (id: string) => new RegExp(`!\\[red\\]\\(/api/docs/${id}/assets/[0-9a-f]{64}\\)`);

/** Whether the image block in `page` shows a loaded image (its pixels decoded). */
const shownImage = (page: Page) =>
  documentText(page)
    .locator('figure.image-block img')
    .evaluateAll((images) => images.map((image) => (image as HTMLImageElement).complete && (image as HTMLImageElement).naturalWidth));

/** Chooses `file` in the file chooser that `Choose image file` of the `Insert image` box opens. */
async function chooseImage(page: Page, file: { name: string; mimeType: string; buffer: Buffer }): Promise<void> {
  await page.getByRole('button', { name: 'Insert image', exact: true }).click();
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Choose image file' }).click()]);
  await chooser.setFiles(file);
}

describe('[IMG6] images in the editor', () => {
  it('inserts an image chosen with Insert image after the caret\'s paragraph, which a second person sees live', async () => {
    const id = await server.createDoc('Pictures', 'Before the picture.');
    const alice = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    const bob = await people.openDoc(id, server.token('viewer', { name: 'Bob', doc: id }));
    await clickBefore(alice.page, 'the picture');
    await chooseImage(alice.page, { name: 'red.png', mimeType: 'image/png', buffer: Buffer.from(tinyPng) });
    await expect.poll(() => serverMarkdown(id)).toMatch(new RegExp(`^Before the picture\\.\\n\\n${assetPattern(id).source}$`));
    await expect.poll(() => shownImage(alice.page)).toEqual([4]);
    await expect.poll(() => shownImage(bob.page)).toEqual([4]);
    expect(await bob.page.getByRole('img', { name: 'red' }).count()).toBe(1);
  });

  it('uploads a pasted image file, with a placeholder while it uploads, and says why a refused file was not kept', async () => {
    const id = await server.createDoc('Pasted', 'Paste here.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await clickBefore(page, 'here');
    // The upload is held until the placeholder has been seen.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/docs/*/assets', async (route) => {
      await held;
      await route.continue();
    });
    await page.evaluate((bytes) => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(bytes)], 'red.png', { type: 'image/png' }));
      document.querySelector('.ProseMirror')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, [...tinyPng]);
    await page.getByText('Uploading image…').waitFor();
    release();
    await expect.poll(() => serverMarkdown(id)).toMatch(new RegExp(`^Paste here\\.\\n\\n${assetPattern(id).source}$`));
    await page.getByText('Uploading image…').waitFor({ state: 'detached' });
    await page.unroute('**/api/docs/*/assets');

    await chooseImage(page, { name: 'drawing.svg', mimeType: 'image/svg+xml', buffer: Buffer.from(svgImage) });
    const alert = page.getByRole('alert').filter({ hasText: 'drawing.svg: This file is not an image Tandem keeps' });
    await alert.waitFor();
    await alert.getByRole('button', { name: 'Dismiss' }).click();
    await alert.waitFor({ state: 'detached' });
    expect(await serverMarkdown(id)).toMatch(new RegExp(`^Paste here\\.\\n\\n${assetPattern(id).source}$`));
  });

  it('shows an image by https address, and a placeholder naming the address of one that does not load', async () => {
    const id = await server.createDoc('By address', 'Text.');
    const served = Buffer.from(tinyPng);
    const alice = await people.open(`/d/${id}`, server.token('editor', { name: 'Alice' }), async ({ context }) => {
      await context.route('https://images.example/**', (route) =>
        route.request().url().endsWith('/ok.png')
          ? route.fulfill({ status: 200, contentType: 'image/png', body: served })
          : route.fulfill({ status: 200, contentType: 'image/png', body: 'not an image at all' }),
      );
    });
    const { page } = alice;
    await waitForStatus(page, 'Connected');
    await clickBefore(page, 'Text');
    await page.getByRole('button', { name: 'Insert image', exact: true }).click();
    const address = page.getByRole('textbox', { name: 'Image address' });
    await address.fill('javascript:alert(1)');
    await address.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'An image can only come from an https address' }).waitFor();
    await address.fill('https://images.example/ok.png');
    await address.press('Enter');
    await expect.poll(() => shownImage(page)).toEqual([4]);

    await page.getByRole('button', { name: 'Insert image', exact: true }).click();
    await page.getByRole('textbox', { name: 'Image address' }).fill('https://images.example/broken.png');
    await page.getByRole('textbox', { name: 'Image address' }).press('Enter');
    const placeholder = page.getByRole('img', { name: 'Image did not load: https://images.example/broken.png' });
    await placeholder.waitFor();
    expect(await placeholder.textContent()).toContain('https://images.example/broken.png');
    await expect.poll(() => serverMarkdown(id)).toBe('![](https://images.example/ok.png)\n\n![](https://images.example/broken.png)\n\nText.');
  });

  it('uploads an image file dropped on the text and puts it after the paragraph it was dropped on', async () => {
    const id = await server.createDoc('Dropped', 'First.\n\nSecond.\n\nThird.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await page.evaluate((bytes) => {
      const paragraph = [...document.querySelectorAll('.ProseMirror p')].find((each) => each.textContent === 'Second.')!;
      const range = document.createRange();
      range.selectNodeContents(paragraph);
      const box = range.getBoundingClientRect();
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(bytes)], 'red.png', { type: 'image/png' }));
      const at = { clientX: box.right - 2, clientY: box.top + box.height / 2, bubbles: true, cancelable: true, dataTransfer: data };
      paragraph.dispatchEvent(new DragEvent('dragover', at));
      paragraph.dispatchEvent(new DragEvent('drop', at));
    }, [...tinyPng]);
    await expect.poll(() => serverMarkdown(id)).toMatch(new RegExp(`^First\\.\\n\\nSecond\\.\\n\\n${assetPattern(id).source}\\n\\nThird\\.$`));
    await expect.poll(() => shownImage(page)).toEqual([4]);
  });

  it('[IMG3] shows the document\'s own images after a reload while the server cannot be reached', async () => {
    const id = await server.createDoc('Kept offline', 'Before the picture.');
    const { page } = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    await clickBefore(page, 'the picture');
    await chooseImage(page, { name: 'red.png', mimeType: 'image/png', buffer: Buffer.from(tinyPng) });
    await expect.poll(() => shownImage(page)).toEqual([4]);
    await waitForOfflineReady(page);
    await server.stop();
    try {
      await page.reload();
      await waitForStatus(page, 'Offline');
      await expect.poll(() => shownImage(page), { timeout: 15_000 }).toEqual([4]);
      expect(await page.getByRole('img', { name: 'red' }).count()).toBe(1);
    } finally {
      await server.restart();
    }
  });
});
