import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { useBrowser } from '../helpers/browser.ts';
import { createPage } from '../helpers/pages.ts';

/*
 * Images in a page's frame (shared/PROTOCOL.md PAGE9): the frame is a `srcdoc` document under
 * its own policy and the app's, which it inherits; an `https:` image loads under both.
 */

const server = useTestServer();
const people = useBrowser(server);

const frame = (page: Page) => page.frameLocator('iframe[title="Page"]');

const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('images in a page', () => {
  it('[PAGE9] an https image loads in the frame under the app’s policy and the frame’s own', async () => {
    const image = 'https://images.tandem.test/cat.png';
    const requested: string[] = [];
    const page = await createPage(server, `<h1>Cats</h1><img src="${image}" alt="A cat">`);
    const alice = await people.open(`/d/${page.id}`, server.token('editor', { name: 'Alice' }), async ({ context }) => {
      // No network in tests: the browser asks for the image, and this answers it. A policy that
      // refuses the image stops it before any request (and reports it in the console).
      await context.route(image, async (route) => {
        requested.push(route.request().url());
        await route.fulfill({ status: 200, contentType: 'image/png', body: Buffer.from(pixel, 'base64') });
      });
    });
    const img = frame(alice.page).locator('img');
    await expect.poll(() => img.evaluate((element: HTMLImageElement) => element.complete && element.naturalWidth)).toBe(1);
    expect([...new Set(requested)]).toEqual([image]);
  });
});
