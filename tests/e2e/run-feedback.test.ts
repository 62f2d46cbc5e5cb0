import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import type { RunningAgent } from '../../agents/reference/reference-agent.ts';
import {
  annotationCards,
  clickBefore,
  useBrowser,
  pinAnnotation,
  readText,
  reviewPanel,
  sendInstructions,
  waitForStatus,
  type Person,
} from '../helpers/browser.ts';

/*
 * What people are told around a run: a reason for discarding kept as a draft instruction
 * (PROTOCOL.md REV5), drift in the send dialog (RUN5), and the app's live region (README,
 * "Using it").
 */

const server = useTestServer();
const people = useBrowser(server);

const open = (id: string, name: string): Promise<Person> => people.openDoc(id, server.token('editor', { name }));

const queueCount = (page: Page) => page.locator('.queue-count');
const announcer = (page: Page) => page.locator('.announcer[aria-live="polite"]');
const announced = async (page: Page) => (await announcer(page).locator('p').allTextContents()).join(' | ');

/** Sends the ready instructions and lets a reference agent answer them; the agent, to stop. */
async function runToReview(page: Page, count: number, watchers: Page[] = []): Promise<RunningAgent> {
  await sendInstructions(page, count);
  const agent = startTestReferenceAgent(server, { pollSeconds: 1 });
  for (const each of [page, ...watchers]) await reviewPanel(each).waitFor({ timeout: 20_000 });
  return agent;
}

describe('Discard run with a reason', () => {
  it('[REV5] leaves the reason typed in the panel as a draft instruction on the restored text, which can be marked ready', async () => {
    const id = await server.createDoc('Reason', 'The quick brown fox jumps over the lazy dog.\n\nA second paragraph.');
    const alice = await open(id, 'Alice');
    let agent: RunningAgent | null = null;
    try {
      await pinAnnotation(alice.page, 'instruction', 'quick brown fox', 'uppercase');
      agent = await runToReview(alice.page, 1);
      // Only the pinned words (REF1).
      await expect.poll(() => readText(alice.page)).toBe('The QUICK BROWN FOX jumps over the lazy dog.\nA second paragraph.');
      const cardsBefore = await annotationCards(alice.page).count();
      expect(await queueCount(alice.page).count()).toBe(0);

      // By keyboard: type the reason, then Shift+Tab back to Discard run and press Enter.
      const reason = reviewPanel(alice.page).getByRole('textbox', { name: 'Reason for discarding (optional)' });
      await reason.focus();
      await alice.page.keyboard.type('Keep the case; only fix the spelling.');
      await alice.page.keyboard.press('Shift+Tab');
      expect(await alice.page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Discard run');
      await alice.page.keyboard.press('Enter');
      await reviewPanel(alice.page).waitFor({ state: 'detached' });
      await expect.poll(() => readText(alice.page)).toBe('The quick brown fox jumps over the lazy dog.\nA second paragraph.');

      // A new draft card: the reason, on the restored paragraph, with the change that was discarded.
      await expect.poll(() => annotationCards(alice.page).count()).toBe(cardsBefore + 1);
      const draft = annotationCards(alice.page).filter({ hasText: 'Keep the case; only fix the spelling.' });
      await expect(draft.locator('.card-state').textContent()).resolves.toBe('Draft');
      await expect(draft.locator('.card-quote').textContent()).resolves.toBe('“The quick brown fox jumps over the lazy dog.”');
      await expect(draft.locator('.card-discarded del').textContent()).resolves.toBe('The QUICK BROWN FOX jumps over the lazy dog.');

      // Marked ready, it joins the queue.
      await draft.getByRole('button', { name: 'Mark ready' }).click();
      await expect.poll(() => queueCount(alice.page).textContent()).toBe('1 instruction ready');
      await expect.poll(() => draft.locator('.card-state').textContent()).toBe('Ready');
      // The server took the change (NOTES3 and NOTES6 allow it on a draft it made).
      const draftId = await draft.getAttribute('data-annotation-id');
      const stateOnServer = async () =>
        (await server.api(`/api/docs/${id}`)).body.annotations.find((note: { id: string }) => note.id === draftId)?.state;
      await expect.poll(stateOnServer).toBe('queued');
      await waitForStatus(alice.page, 'Connected');
    } finally {
      await agent?.stop();
      await alice.context.close();
    }
  });
});

describe('the send dialog', () => {
  it('[RUN5] marks an instruction whose pinned text changed since, with what it was and what it is now', async () => {
    const id = await server.createDoc('Drift', 'The quick brown fox jumps over the lazy dog.');
    const alice = await open(id, 'Alice');
    try {
      const moved = await pinAnnotation(alice.page, 'instruction', 'quick brown fox', 'uppercase');
      const still = await pinAnnotation(alice.page, 'instruction', 'lazy dog', 'lowercase');
      await clickBefore(alice.page, 'brown');
      await alice.page.keyboard.type('very ');
      await expect.poll(() => readText(alice.page)).toBe('The quick very brown fox jumps over the lazy dog.');

      await alice.page.getByRole('button', { name: 'Send 2 to agent' }).click();
      const dialog = alice.page.getByRole('dialog');
      await dialog.waitFor();
      const marks = await dialog.locator('.send-item').evaluateAll((items) =>
        items.map((item) => [item.querySelector('.send-text')?.textContent, item.querySelector('.send-drift')?.textContent ?? null]),
      );
      expect(marks).toEqual([
        ['uppercase', 'The text changed since you pinned this: was «quick brown fox», now «quick very brown fox»'],
        ['lowercase', null],
      ]);
      await dialog.getByRole('button', { name: 'Send', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      const run = (await server.api(`/api/docs/${id}`)).body.runs[0];
      expect(run.items.map((item: { instructionId: string; drifted: boolean; currentText: string }) => [item.instructionId, item.drifted, item.currentText])).toEqual([
        [moved, true, 'quick very brown fox'],
        [still, false, 'lazy dog'],
      ]);
    } finally {
      await alice.context.close();
    }
  });
});

describe('the live region', () => {
  it('tells the others that a run arrived for review and who accepted it, not the one who accepted', async () => {
    const id = await server.createDoc('Told', 'The quick brown fox jumps over the lazy dog.');
    const alice = await open(id, 'Alice');
    const bob = await open(id, 'Bob');
    let agent: RunningAgent | null = null;
    try {
      expect(await announcer(alice.page).count()).toBe(1);
      await pinAnnotation(alice.page, 'instruction', 'lazy dog', 'uppercase');
      agent = await runToReview(alice.page, 1, [bob.page]);
      for (const person of [alice, bob]) {
        await expect.poll(() => announced(person.page)).toContain('Run ready for review: Reference agent answered 1 instruction');
      }

      await reviewPanel(bob.page).getByRole('button', { name: 'Accept run' }).click();
      await expect.poll(() => announced(alice.page)).toContain('Run accepted by Bob');
      await reviewPanel(bob.page).waitFor({ state: 'detached' });
      // Bob's page has read the accepted run (its panel is gone) and told him nothing of it.
      expect(await announced(bob.page)).not.toContain('accepted');
    } finally {
      await agent?.stop();
      for (const person of [alice, bob]) await person.context.close();
    }
  });
});
