import { describe, expect, it } from 'vitest';
import type { Frame, Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { useBrowser } from '../helpers/browser.ts';
import { createPage } from '../helpers/pages.ts';
import { revokeInDataDir, tokenIdOf } from '../../server/auth/revoke.ts';

/*
 * A page's links never take the person anywhere (PAGE9), whichever way they are followed, and a
 * token in a link never replaces a device's sign-in unasked (TOKEN6): a page's author could
 * otherwise sign its readers in as themselves (or out), by a relative link `/?token=…`.
 */

const server = useTestServer();
const people = useBrowser(server);

const appBar = (page: Page) => page.locator('.app-bar .me');

async function pageFrame(page: Page): Promise<Frame> {
  const handle = await page.locator('iframe[title="Page"]').elementHandle();
  return (await handle!.contentFrame())!;
}

/**
 * Records, on the frame's window (the last listener an event reaches), whether each event
 * that could navigate had been cancelled by then, which is what decides its default action.
 */
async function recordDefaults(page: Page): Promise<void> {
  // Registered from the app's realm, as the app's own listeners are: the frame runs no script.
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { seen: string[] }).seen = seen;
    const frameWindow = document.querySelector<HTMLIFrameElement>('iframe[title="Page"]')!.contentWindow!;
    for (const type of ['click', 'auxclick', 'submit']) {
      frameWindow.addEventListener(type, (event) => void seen.push(`${type}:${event.defaultPrevented ? 'cancelled' : 'followed'}`));
    }
  });
}

const recorded = (page: Page) => page.evaluate(() => (window as unknown as { seen: string[] }).seen);

describe('links in a page', () => {
  it('[PAGE9] a middle click, Enter on a focused link and a form submission in the frame go nowhere', async () => {
    const mallory = server.token('editor', { name: 'Mallory' });
    const { id } = await createPage(server, `<p>Go <a class="rel" href="/?token=${mallory}">here</a> or <a class="abs" href="https://example.com/">there</a>.</p>`);
    const alice = await people.open(`/d/${id}`, server.token('editor', { name: 'Alice' }));
    await appBar(alice.page).filter({ hasText: 'Alice' }).waitFor();
    const frame = await pageFrame(alice.page);
    await frame.locator('a.rel').waitFor();
    await recordDefaults(alice.page);
    const opened: string[] = [];
    alice.context.on('page', (page) => opened.push(page.url()));
    const frameNavigations: string[] = [];
    alice.context.on('request', (request) => {
      if (request.isNavigationRequest() && request.frame() === frame) frameNavigations.push(request.url());
    });

    await frame.locator('a.rel').click({ button: 'middle' });
    await frame.locator('a.abs').click({ button: 'middle' });
    await frame.locator('a.rel').focus();
    await alice.page.keyboard.press('Enter');
    // Even a form that got past both sanitizers (PAGE2) does not submit: Enter in its field
    // (the sandbox, without allow-forms, blocks it before any submit event). Chromium says so
    // in the console: the refusal this test provokes.
    people.allowPageError(/Blocked form submission to '\/' because the form's frame is sandboxed and the 'allow-forms' permission is not set\./);
    await frame.evaluate(() => {
      document.body.insertAdjacentHTML('beforeend', '<form class="sneaked" action="/"><input name="token" value="x"></form>');
    });
    await frame.locator('form.sneaked input').focus();
    await alice.page.keyboard.press('Enter');

    expect(await recorded(alice.page)).toEqual(['auxclick:cancelled', 'auxclick:cancelled', 'click:cancelled']);
    // Positive control and barrier: a middle click on the app's own link opens a tab, after any
    // tab or frame navigation the input before it would have started.
    const control = alice.context.waitForEvent('page');
    await alice.page.locator('.app-bar a.brand').click({ button: 'middle' });
    await (await control).waitForLoadState();
    expect(opened).toHaveLength(1);
    expect(new URL(alice.context.pages()[1].url()).pathname).toBe('/');
    expect(frameNavigations).toEqual([]);
    expect(frame.url()).toBe('about:srcdoc');
    await expect.poll(() => appBar(alice.page).innerText()).toContain('Alice');
  });

  it('[TOKEN6] a link to another sign-in asks "Switch to NAME?" first; keeping leaves the sign-in as it was', async () => {
    const alice = await people.open('/', server.token('editor', { name: 'Alice' }));
    await appBar(alice.page).filter({ hasText: 'Alice' }).waitFor();

    await alice.page.goto(`${server.url}/?token=${encodeURIComponent(server.token('viewer', { name: 'Mallory' }))}`);
    const prompt = alice.page.getByRole('dialog', { name: 'Switch to Mallory?' });
    await prompt.waitFor();
    expect(new URL(alice.page.url()).search).toBe('');
    await expect.poll(() => appBar(alice.page).innerText()).toContain('Alice');
    await prompt.getByRole('button', { name: 'Stay signed in as Alice' }).click();
    await prompt.waitFor({ state: 'detached' });

    await alice.page.reload();
    await appBar(alice.page).filter({ hasText: 'Alice' }).waitFor();
    expect(await alice.page.getByRole('dialog').count()).toBe(0);
  });

  it('[TOKEN6] switching takes the link\'s sign-in, with its own name', async () => {
    const alice = await people.open('/', server.token('editor', { name: 'Alice' }));
    await appBar(alice.page).filter({ hasText: 'Alice' }).waitFor();

    await alice.page.goto(`${server.url}/?token=${encodeURIComponent(server.token('viewer', { name: 'Bob' }))}`);
    const prompt = alice.page.getByRole('dialog', { name: 'Switch to Bob?' });
    await prompt.getByRole('button', { name: 'Switch to Bob' }).click();
    await appBar(alice.page).filter({ hasText: 'Bob' }).waitFor();
    expect(await appBar(alice.page).innerText()).toContain('viewer');
    await alice.page.reload();
    await appBar(alice.page).filter({ hasText: 'Bob' }).waitFor();
  });

  it('[TOKEN6] a link whose token the server refuses is said and dropped; the sign-in stays', async () => {
    const alice = await people.open('/', server.token('editor', { name: 'Alice' }));
    await appBar(alice.page).filter({ hasText: 'Alice' }).waitFor();
    const revoked = server.token('editor', { name: 'Mallory' });
    await revokeInDataDir(server.dataDir, tokenIdOf(revoked)!.jti, null);

    await alice.page.goto(`${server.url}/?token=${encodeURIComponent(revoked)}`);
    const alert = alice.page.getByRole('alert').filter({ hasText: "The server refused the link's sign-in: This token has been revoked — ask for a new one. You are still signed in as Alice." });
    await alert.waitFor();
    expect(await alice.page.getByRole('dialog').count()).toBe(0);
    await alert.getByRole('button', { name: 'Dismiss' }).click();
    await alice.page.reload();
    await appBar(alice.page).filter({ hasText: 'Alice' }).waitFor();
    await alice.page.getByRole('button', { name: 'New document' }).waitFor();
  });

  it('[TOKEN6] a renewed link of the same person replaces the token without asking', async () => {
    const first = server.token('editor', { name: 'Alice', sub: 'alice' });
    const alice = await people.open('/', first);
    await appBar(alice.page).filter({ hasText: 'Alice' }).waitFor();
    const renewed = server.token('editor', { name: 'Alice', sub: 'alice' });
    await alice.page.goto(`${server.url}/?token=${encodeURIComponent(renewed)}`);
    await alice.page.waitForURL(`${server.url}/`);
    await expect
      .poll(() => alice.page.evaluate(() => new Promise((resolve) => {
        const open = indexedDB.open('tandem-device');
        open.onsuccess = () => {
          const get = open.result.transaction('keyval').objectStore('keyval').get('token');
          get.onsuccess = () => resolve(get.result);
        };
      })))
      .toBe(renewed);
    expect(await alice.page.getByRole('dialog').count()).toBe(0);
  });
});
