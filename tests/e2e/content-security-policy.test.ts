import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { readText, typeAtEnd, useBrowser, waitForOfflineReady, waitForStatus, type Person } from '../helpers/browser.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * The app under its own Content-Security-Policy and Referrer-Policy (server/http/security-headers.ts):
 * everything a person does still works, nothing is refused, and the sign-in token of the
 * address never leaves in a Referer.
 */

const server = useTestServer();
const people = useBrowser(server);

interface Watch {
  /** CSP violations the page reported, and the console's CSP complaints. */
  violations(page: Page): Promise<string[]>;
  /** Referer headers the page's requests carried. */
  referers: string[];
  prepare(person: Person): Promise<void>;
}

/** Watches a person's page from before its first script runs. */
function watch(): Watch {
  const consoleComplaints: string[] = [];
  const referers: string[] = [];
  return {
    referers,
    async prepare({ context, page }) {
      await context.addInitScript(() => {
        const seen: string[] = [];
        (window as unknown as { __violations: string[] }).__violations = seen;
        document.addEventListener('securitypolicyviolation', (event) => seen.push(event.violatedDirective));
      });
      page.on('console', (message) => {
        if (/content security policy/i.test(message.text())) consoleComplaints.push(message.text());
      });
      page.on('request', (request) => {
        void request.allHeaders().then((headers) => {
          if (headers.referer) referers.push(headers.referer);
        });
      });
    },
    async violations(page) {
      const reported = await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
      return [...reported, ...consoleComplaints];
    },
  };
}

/** Adds an inline script to the page; whether it ran. */
function runInlineScript(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const script = document.createElement('script');
    script.textContent = 'document.documentElement.dataset.inlineRan = "yes"';
    document.head.append(script);
    return document.documentElement.dataset.inlineRan === 'yes';
  });
}

describe('the app under its Content-Security-Policy', () => {
  it('loads, gets its service worker and syncs two people with cursors, with no violation and no Referer', async () => {
    // The positive control's inline script is refused, which the browser reports in the console.
    people.allowPageError(/Executing inline script violates the following Content Security Policy directive 'script-src 'self''/);
    const id = await server.createDoc('Policy', 'Start.');
    const aliceWatch = watch();
    const bobWatch = watch();
    const alice = await people.open(`/d/${id}`, server.token('editor', { name: 'Alice' }), aliceWatch.prepare);
    const bob = await people.open(`/d/${id}`, server.token('editor', { name: 'Bob' }), bobWatch.prepare);
    try {
      await waitForStatus(alice.page, 'Connected');
      await waitForStatus(bob.page, 'Connected');
      await waitForOfflineReady(alice.page);

      await typeAtEnd(alice.page, ' Alice writes.');
      await expect.poll(() => readText(bob.page)).toBe('Start. Alice writes.');
      const cursor = bob.page.locator('.ProseMirror-yjs-cursor', { hasText: 'Alice' });
      await cursor.waitFor();
      // y-prosemirror colours a cursor through its style attribute.
      expect(await cursor.getAttribute('style')).toMatch(/border-color/);
      expect(await cursor.evaluate((element) => getComputedStyle(element).borderLeftColor)).not.toBe('rgb(0, 0, 0)');

      expect(await aliceWatch.violations(alice.page)).toEqual([]);
      expect(await bobWatch.violations(bob.page)).toEqual([]);
      expect([...aliceWatch.referers, ...bobWatch.referers]).toEqual([]);

      // The policy is in force and its violations are seen: an inline script is refused.
      expect(await runInlineScript(alice.page)).toBe(false);
      await expect.poll(() => aliceWatch.violations(alice.page)).toContain('script-src-elem');
    } finally {
      await alice.context.close();
      await bob.context.close();
    }
  });
});
