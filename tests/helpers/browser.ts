import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium, started the way this machine's closed network needs. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface Person {
  context: BrowserContext;
  page: Page;
}

/**
 * A person on their own device (a fresh browser context: its own IndexedDB and service worker)
 * who opens `path` with `token` in the URL, as the link printed by `npm start` does.
 */
export async function openAs(browser: Browser, baseUrl: string, path: string, token: string): Promise<Person> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${baseUrl}${path}?token=${encodeURIComponent(token)}`);
  return { context, page };
}

/** The editable text of the open document. */
export const documentText = (page: Page) => page.getByLabel('Document');

/**
 * The text of the open document as a person reads it: one line per block, without the name
 * labels of other people's cursors.
 */
export function readText(page: Page): Promise<string> {
  return documentText(page).evaluate((editor) => {
    const copy = editor.cloneNode(true) as HTMLElement;
    copy.querySelectorAll('.ProseMirror-yjs-cursor, .ProseMirror-widget').forEach((el) => el.remove());
    return Array.from(copy.children, (block) => (block.textContent ?? '').replace(/\u2060/g, '')).join('\n');
  });
}

/** Waits until the connection indicator says `state`. */
export async function waitForStatus(page: Page, state: 'Connected' | 'Offline' | 'Syncing'): Promise<void> {
  await page.getByRole('status').filter({ hasText: state }).waitFor({ timeout: 20_000 });
}

/** Puts the caret at the very end of the document and types `text`. */
export async function typeAtEnd(page: Page, text: string): Promise<void> {
  const editor = documentText(page);
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(text);
}

/** Waits until the app has written the document to IndexedDB (safe to reload offline). */
export async function waitForSavedLocally(page: Page): Promise<void> {
  await page.locator('tandem-doc-view[data-saved-locally="true"]').waitFor({ state: 'attached', timeout: 20_000 });
}

/** Waits until a service worker controls the page with the app shell cached. */
export async function waitForOfflineReady(page: Page): Promise<void> {
  await page.locator('html[data-offline-ready]').waitFor({ state: 'attached', timeout: 20_000 });
}
