import { afterAll, afterEach, beforeAll } from 'vitest';
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
 * who opens `path` with `token` in the URL, as the link printed by `npm start` does. `prepare`
 * runs before the first navigation (to add init scripts or listen to the page from the start).
 */
export async function openAs(
  browser: Browser,
  baseUrl: string,
  path: string,
  token: string,
  prepare?: (person: Person) => Promise<void>,
): Promise<Person> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  await prepare?.({ context, page });
  await page.goto(`${baseUrl}${path}?token=${encodeURIComponent(token)}`);
  return { context, page };
}

/** An init script that counts the WebSockets a page opens to `/collab` (`window.collabSockets`). */
export const countCollabSockets = `(() => {
  const Native = window.WebSocket;
  window.collabSockets = 0;
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(url, protocols);
      if (new URL(url).pathname === '/collab') window.collabSockets += 1;
    }
  };
})()`;

/**
 * Console messages of the app's pages that are understood and harmless, each with its reason.
 * Anything else the page logs as an error fails the test that opened it.
 */
export const harmlessConsoleErrors: readonly { pattern: RegExp; why: string }[] = [
  {
    pattern: /^Failed to load resource: the server responded with a status of (401|403|404|409|410|413|415|422|429)\b/,
    why: 'Chromium logs every answered request with an error status; the app handles these answers (refusals the tests provoke)',
  },
  {
    pattern: /^Failed to load resource: net::ERR_(CONNECTION_REFUSED|CONNECTION_RESET|CONNECTION_CLOSED|EMPTY_RESPONSE)$/,
    why: 'a request refused or cut off while the test stops the server; the app shows it is offline',
  },
  {
    pattern: /^An unknown error occurred when fetching the script\.$/,
    why: "Chromium's own message when the service worker's update check cannot reach a server the test has stopped; the page keeps running from the worker's cache",
  },
  {
    pattern: /^WebSocket connection to '.*' failed/,
    why: 'Chromium logs a refused or dropped WebSocket; the provider reconnects (tests that stop the server)',
  },
];

/**
 * Collects the uncaught errors and console errors of every page of `context` (and console
 * warnings from ProseMirror, which says there when it was handed an invalid selection).
 */
function watchPageErrors(context: BrowserContext, errors: string[]): void {
  const watch = (page: Page) => {
    // Playwright gives an error thrown without a stack an empty `stack`: its message is then the text.
    page.on('pageerror', (error) => errors.push(`uncaught: ${error.stack || `${error.name}: ${error.message}`}`));
    page.on('console', (message) => {
      const text = message.text();
      if (message.type() === 'error' && !harmlessConsoleErrors.some(({ pattern }) => pattern.test(text))) {
        errors.push(`console error: ${text}`);
      }
      if (message.type() === 'warning' && /TextSelection endpoint/.test(text)) errors.push(`console warning: ${text}`);
    });
  };
  context.pages().forEach(watch);
  context.on('page', watch);
}

/**
 * One Chromium for the tests of a file, launched before them and closed after them; `open`
 * makes a person (a fresh context) who opens `path` on `server` with `token`; `openDoc`, one
 * who opens document `docId` and is connected. The people a test opened are closed after it,
 * and the test fails if any of their pages threw or logged an error (see harmlessConsoleErrors);
 * a test that provokes one on purpose names it with `allowPageError`.
 */
export function useBrowser(server: { readonly url: string }): {
  open(path: string, token: string, prepare?: (person: Person) => Promise<void>): Promise<Person>;
  openDoc(docId: string, token: string): Promise<Person>;
  /** Lets page errors matching `pattern` pass in the current test. */
  allowPageError(pattern: RegExp): void;
  /** A person whose fresh context has one blank page (to open another app than Tandem's). */
  blank(): Promise<Person>;
} {
  let browser: Browser | undefined;
  const opened: Person[] = [];
  const errors: string[] = [];
  const allowed: RegExp[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterEach(async () => {
    for (const person of opened.splice(0)) await person.context.close();
    const unexpected = errors.splice(0).filter((error) => !allowed.some((pattern) => pattern.test(error)));
    allowed.splice(0);
    if (unexpected.length > 0) throw new Error(`The page reported errors:\n${unexpected.join('\n')}`);
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    async open(path, token, prepare) {
      if (!browser) throw new Error('The browser starts in beforeAll: open people inside tests.');
      const person = await openAs(browser, server.url, path, token, async (person) => {
        watchPageErrors(person.context, errors);
        await prepare?.(person);
      });
      opened.push(person);
      return person;
    },
    async blank() {
      if (!browser) throw new Error('The browser starts in beforeAll: open people inside tests.');
      const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
      watchPageErrors(context, errors);
      const person = { context, page: await context.newPage() };
      opened.push(person);
      return person;
    },
    allowPageError(pattern) {
      allowed.push(pattern);
    },
    async openDoc(docId, token) {
      const person = await this.open(`/d/${docId}`, token);
      await waitForStatus(person.page, 'Connected');
      return person;
    },
  };
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

/**
 * Selects the first occurrence of `text` in the document by dragging the mouse over it, as a
 * person would (the text must sit on one line). Falls back to setting the DOM selection when
 * the drag lands a character off.
 */
export async function selectText(page: Page, text: string): Promise<void> {
  const box = await textBox(page, text);
  await page.mouse.move(box.x1, box.y1);
  await page.mouse.down();
  await page.mouse.move((box.x1 + box.x2) / 2, box.y2, { steps: 4 });
  await page.mouse.move(box.x2, box.y2, { steps: 4 });
  await page.mouse.up();
  const selected = await page.evaluate(() => getSelection()?.toString() ?? '');
  if (selected === text) return;
  await textBox(page, text, true);
}

/** Clicks just before the first occurrence of `text`, putting the caret there. */
export async function clickBefore(page: Page, text: string): Promise<void> {
  const box = await textBox(page, text);
  await page.mouse.click(box.x1, box.y1);
}

/**
 * Where the first occurrence of `text` in the document is on screen: a point on the left edge
 * of its first character and one on the right edge of its last (it must sit on one line).
 * With `select`, also makes it the DOM selection.
 */
function textBox(page: Page, text: string, select = false): Promise<{ x1: number; y1: number; x2: number; y2: number }> {
  // No named functions inside: the page runs this source as it is, without bundler helpers.
  return documentText(page).evaluate((root, [wanted, selectIt]) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const pieces: { node: Text; start: number }[] = [];
    let all = '';
    while (walker.nextNode()) {
      const node = walker.currentNode as Text;
      if (node.parentElement?.closest('.ProseMirror-yjs-cursor')) continue;
      pieces.push({ node, start: all.length });
      all += node.data;
    }
    const at = all.indexOf(wanted);
    if (at < 0) throw new Error(`"${wanted}" is not in the document`);
    const first = pieces.find((p) => at >= p.start && at < p.start + p.node.data.length)!;
    const end = at + wanted.length;
    const last = pieces.find((p) => end > p.start && end <= p.start + p.node.data.length)!;
    const range = document.createRange();
    range.setStart(first.node, at - first.start);
    range.setEnd(last.node, end - last.start);
    if (selectIt) getSelection()?.setBaseAndExtent(range.startContainer, range.startOffset, range.endContainer, range.endOffset);
    const rects = Array.from(range.getClientRects()).filter((rect) => rect.width > 0);
    const a = rects[0];
    const b = rects[rects.length - 1];
    return { x1: a.left + 1, y1: a.top + a.height / 2, x2: b.right - 1, y2: b.top + b.height / 2 };
  }, [text, select] as const);
}

/** The cards of the annotation margin, in their order. */
export const annotationCards = (page: Page) => page.locator('.annotation-card');

/** The text highlighted for annotation `id` (pieces of overlapping highlights joined). */
export function highlightedText(page: Page, id: string): Promise<string> {
  return page.locator(`mark.annotation-highlight[data-annotation-id="${id}"]`).evaluateAll((marks) =>
    marks
      .map((mark) => {
        const copy = mark.cloneNode(true) as HTMLElement;
        copy.querySelectorAll('.ProseMirror-yjs-cursor, .ProseMirror-widget').forEach((el) => el.remove());
        return copy.textContent ?? '';
      })
      .join(''),
  );
}

/**
 * Pins a comment or an instruction on the first occurrence of `quote`: selects it, presses
 * `Comment` or `Instruct`, types `text` into the text box and presses Enter. Returns the new
 * annotation's id (its card's `data-annotation-id`).
 */
export async function pinAnnotation(page: Page, kind: 'comment' | 'instruction', quote: string, text: string): Promise<string> {
  const before = await annotationCards(page).evaluateAll((cards) => cards.map((card) => card.getAttribute('data-annotation-id')));
  await selectText(page, quote);
  await page.getByRole('button', { name: kind === 'comment' ? 'Comment' : 'Instruct', exact: true }).click();
  const box = page.getByRole('textbox', { name: kind === 'comment' ? 'Comment' : 'Instruction', exact: true });
  await box.fill(text);
  await box.press('Enter');
  await box.waitFor({ state: 'detached' });
  const card = annotationCards(page).filter({ hasText: text });
  await card.waitFor();
  const id = await card.getAttribute('data-annotation-id');
  if (!id || before.includes(id)) throw new Error(`No new card for "${text}"`);
  return id;
}

/** The review of a run (a region named `Review run`). */
export const reviewPanel = (page: Page) => page.getByRole('region', { name: 'Review run' });

/** The progress line of the current run, as it reads (empty when there is none). */
export async function progressLine(page: Page): Promise<string> {
  return (await page.locator('.run-progress').innerText()).trim();
}

/**
 * The text each instruction's change holds in the document (`span.tandem-change`, pieces
 * joined), keyed by instruction id, with the number on its badge (`sup.change-badge`).
 */
export function changesInText(page: Page): Promise<Record<string, { text: string; number: string | null }>> {
  return documentText(page).evaluate((root) => {
    const found: Record<string, { text: string; number: string | null }> = {};
    root.querySelectorAll('span.tandem-change').forEach((span) => {
      const id = span.getAttribute('data-instruction') ?? '';
      const copy = span.cloneNode(true) as HTMLElement;
      copy.querySelectorAll('.ProseMirror-yjs-cursor, .ProseMirror-widget').forEach((el) => el.remove());
      found[id] ??= { text: '', number: null };
      found[id].text += copy.textContent ?? '';
    });
    root.querySelectorAll('sup.change-badge').forEach((badge) => {
      const id = badge.getAttribute('data-instruction') ?? '';
      if (found[id]) found[id].number = badge.getAttribute('data-instruction-number');
    });
    return found;
  });
}

/** Presses `Send N to agent`, then `Send` in the dialog, and waits for the dialog to close. */
export async function sendInstructions(page: Page, count: number): Promise<void> {
  await page.getByRole('button', { name: `Send ${count} to agent` }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Send', exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}
