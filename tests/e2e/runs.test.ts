import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import type { RunningAgent } from '../../agents/reference/reference-agent.ts';
import {
  changesInText,
  useBrowser,
  pinAnnotation,
  progressLine,
  readText,
  reviewPanel,
  sendInstructions,
  type Person,
} from '../helpers/browser.ts';

const server = useTestServer();
const people = useBrowser(server);

const open = (id: string, role: 'editor' | 'viewer', name: string): Promise<Person> => people.openDoc(id, server.token(role, { name }));

const markdownOf = async (id: string) => (await server.api(`/api/docs/${id}/markdown`)).body as string;
const cardState = (page: Page, id: string) => page.locator(`.annotation-card[data-annotation-id="${id}"] .card-state`).textContent();
const reviewItem = (page: Page, id: string) => reviewPanel(page).locator(`.review-item[data-instruction-id="${id}"]`);

/** Records every text the progress line shows from now on (a fast agent passes through states quickly). */
async function recordProgress(page: Page): Promise<() => Promise<string[]>> {
  await page.locator('.run-progress').evaluate((line) => {
    const seen: string[] = [];
    (window as unknown as { progressSeen: string[] }).progressSeen = seen;
    const note = () => {
      const text = (line as HTMLElement).innerText.trim();
      if (text && seen[seen.length - 1] !== text) seen.push(text);
    };
    new MutationObserver(note).observe(line, { childList: true, subtree: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen);
}

describe('a run reviewed by the people', () => {
  it('shows the agent’s changes numbered in every browser; Discard run restores the text, Accept run keeps it', async () => {
    const original = 'The quick brown fox jumps over the lazy dog.\n\nA second paragraph.';
    const id = await server.createDoc('Review', original);
    const alice = await open(id, 'editor', 'Alice');
    const bob = await open(id, 'editor', 'Bob');
    const vera = await open(id, 'viewer', 'Vera');
    let agent: RunningAgent | null = null;
    try {
      const replace = await pinAnnotation(alice.page, 'instruction', 'quick brown fox', 'replace "quick" with "slow"');
      const seenByBob = await recordProgress(bob.page);
      await sendInstructions(alice.page, 1);
      for (const person of [alice, bob]) await expect.poll(() => progressLine(person.page)).toBe('Sent · waiting for an agent');

      agent = startTestReferenceAgent(server, { pollSeconds: 1 });
      for (const person of [alice, bob, vera]) {
        await reviewPanel(person.page).waitFor({ timeout: 20_000 });
        await expect.poll(() => changesInText(person.page)).toEqual({ [replace]: { text: 'slow', number: '1' } });
        await expect.poll(() => readText(person.page)).toBe('The slow brown fox jumps over the lazy dog.\nA second paragraph.');
      }
      expect(await seenByBob()).toContain('Reference agent is working on 1 instruction…');
      expect(await progressLine(bob.page)).toBe('');

      // The panel says what happened to the instruction, with the removed text struck through.
      const item = reviewItem(bob.page, replace);
      await expect(item.locator('.review-outcome').textContent()).resolves.toBe('Changed');
      await expect(item.locator('del').allTextContents()).resolves.toEqual(['quick']);
      await expect(item.locator('ins').allTextContents()).resolves.toEqual(['slow']);
      // Editors decide; the viewer reads the same panel without the buttons.
      expect(await reviewPanel(vera.page).getByRole('button', { name: 'Accept run' }).count()).toBe(0);
      expect(await reviewPanel(vera.page).getByRole('button', { name: 'Discard run' }).count()).toBe(0);

      // While the run is in review, the queue offers no second send and says why.
      const upper = await pinAnnotation(bob.page, 'instruction', 'second paragraph', 'uppercase');
      await expect.poll(() => bob.page.locator('.queue-count').textContent()).toBe('1 instruction ready');
      expect(await bob.page.getByRole('button', { name: 'Send 1 to agent' }).isDisabled()).toBe(true);
      await bob.page.getByText('A run is in review').waitFor();

      // Discard run (by keyboard): the original text is back everywhere, and the panel goes.
      await reviewPanel(alice.page).getByRole('button', { name: 'Discard run' }).focus();
      await alice.page.keyboard.press('Enter');
      for (const person of [alice, bob, vera]) {
        await reviewPanel(person.page).waitFor({ state: 'detached' });
        await expect.poll(() => readText(person.page)).toBe('The quick brown fox jumps over the lazy dog.\nA second paragraph.');
        expect(await changesInText(person.page)).toEqual({});
      }
      await expect.poll(() => markdownOf(id)).toBe(original);
      await expect.poll(() => cardState(bob.page, replace)).toBe('Answered');

      // A second run: one instruction the agent carries out, one it refuses.
      const nonsense = await pinAnnotation(alice.page, 'instruction', 'lazy dog', 'make it sing like Keats');
      await expect.poll(() => alice.page.locator('.queue-count').textContent()).toBe('2 instructions ready');
      await sendInstructions(alice.page, 2);
      for (const person of [alice, bob]) {
        await reviewPanel(person.page).waitFor({ timeout: 20_000 });
        // Items are numbered in the order the instructions were made: Bob's uppercase first.
        await expect.poll(() => changesInText(person.page)).toEqual({ [upper]: { text: 'SECOND PARAGRAPH', number: '1' } });
        await expect.poll(() => readText(person.page)).toBe('The quick brown fox jumps over the lazy dog.\nA SECOND PARAGRAPH.');
      }
      const refused = reviewItem(alice.page, nonsense);
      await expect(refused.locator('.review-outcome').textContent()).resolves.toBe('Refused');
      await expect(refused.locator('.review-reason').textContent()).resolves.toContain('I did not understand this instruction.');
      await expect(reviewItem(alice.page, upper).locator('.review-number').textContent()).resolves.toBe('1');
      await expect(refused.locator('.review-number').textContent()).resolves.toBe('2');

      // Bob accepts. While the request is out both buttons are disabled; a refusal shows the
      // server's words and gives the buttons back.
      const accept = reviewPanel(bob.page).getByRole('button', { name: 'Accept run' });
      const discard = reviewPanel(bob.page).getByRole('button', { name: 'Discard run' });
      let release: () => Promise<void> = async () => {};
      const held = new Promise<void>((resolve) =>
        bob.page.route('**/api/runs/*/accept', async (route) => {
          release = () =>
            route.fulfill({
              status: 409,
              contentType: 'application/json',
              body: JSON.stringify({ error: { code: 'NOT_IN_REVIEW', message: 'This run is not waiting for review.' } }),
            });
          resolve();
        }),
      );
      await accept.click();
      await held;
      expect(await accept.isDisabled()).toBe(true);
      expect(await discard.isDisabled()).toBe(true);
      await release();
      await expect.poll(() => reviewPanel(bob.page).getByRole('alert').textContent()).toBe('This run is not waiting for review.');
      expect(await accept.isDisabled()).toBe(false);
      await bob.page.unroute('**/api/runs/*/accept');

      await accept.click();
      for (const person of [alice, bob, vera]) {
        await reviewPanel(person.page).waitFor({ state: 'detached' });
        await expect.poll(() => changesInText(person.page)).toEqual({});
        await expect.poll(() => readText(person.page)).toBe('The quick brown fox jumps over the lazy dog.\nA SECOND PARAGRAPH.');
      }
      await expect.poll(() => markdownOf(id)).toBe('The quick brown fox jumps over the lazy dog.\n\nA SECOND PARAGRAPH.');
    } finally {
      await agent?.stop();
      for (const person of [alice, bob, vera]) await person.context.close();
    }
  });

  it('shows who is working on a run, and when it fails says why and puts its instructions back in the queue', async () => {
    const id = await server.createDoc('Failing', 'Some words to work on.');
    const alice = await open(id, 'editor', 'Alice');
    try {
      const instruction = await pinAnnotation(alice.page, 'instruction', 'Some words', 'uppercase');
      await sendInstructions(alice.page, 1);
      await expect.poll(() => progressLine(alice.page)).toBe('Sent · waiting for an agent');
      const runId = (await server.api(`/api/docs/${id}`)).body.runs[0].runId as string;

      // A hand-driven agent claims the run and gives up.
      const token = server.token('agent', { name: 'Test agent' });
      expect((await server.api(`/api/agent/runs/${runId}/claim`, { method: 'POST', token })).status).toBe(200);
      await expect.poll(() => progressLine(alice.page)).toBe('Test agent is working on 1 instruction…');
      expect(await alice.page.locator('.run-progress .activity').count()).toBe(1);

      const failed = await server.api(`/api/agent/runs/${runId}/fail`, {
        method: 'POST',
        token,
        body: { message: 'The model could not be reached.' },
      });
      expect(failed.status).toBe(200);
      await expect
        .poll(() => progressLine(alice.page))
        .toBe('The run failed: The model could not be reached. Its instructions are back in the queue.');
      await expect.poll(() => cardState(alice.page, instruction)).toBe('Ready');
      await expect.poll(() => alice.page.locator('.queue-count').textContent()).toBe('1 instruction ready');
      expect(await alice.page.getByRole('button', { name: 'Send 1 to agent' }).isDisabled()).toBe(false);
    } finally {
      await alice.context.close();
    }
  });
});
