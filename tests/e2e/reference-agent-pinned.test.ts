import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import { highlightedText, pinAnnotation, readText, reviewPanel, sendInstructions, useBrowser, type Person } from '../helpers/browser.ts';

/*
 * The reference agent on the words a person pinned (shared/PROTOCOL.md REF1), as two people see
 * it: Alice's `uppercase` on five words changes those words only, and Bob's comment on the other
 * sentence of the same paragraph stays on its text.
 */

const server = useTestServer();
const people = useBrowser(server);

const open = (id: string, name: string): Promise<Person> => people.openDoc(id, server.token('editor', { name }));
const card = (page: Page, id: string) => page.locator(`.annotation-card[data-annotation-id="${id}"]`);

describe('an instruction pinned to part of a paragraph', () => {
  it('[REF1] uppercase changes only the pinned words; the comment on the other sentence keeps its text', async () => {
    const id = await server.createDoc('Pinned', 'Alice wrote these five words here. Bob wrote **this other sentence** too.');
    const alice = await open(id, 'Alice');
    const bob = await open(id, 'Bob');
    const comment = await pinAnnotation(bob.page, 'comment', 'this other sentence', 'Keep mine as it is');
    await card(alice.page, comment).waitFor();
    await pinAnnotation(alice.page, 'instruction', 'these five words here', 'uppercase');
    await sendInstructions(alice.page, 1);
    const agent = startTestReferenceAgent(server, { pollSeconds: 1 });
    try {
      for (const person of [alice, bob]) {
        await reviewPanel(person.page).waitFor({ timeout: 20_000 });
        await expect.poll(() => readText(person.page)).toBe('Alice wrote THESE FIVE WORDS HERE. Bob wrote this other sentence too.');
        await expect.poll(() => highlightedText(person.page, comment)).toBe('this other sentence');
        expect(await card(person.page, comment).locator('.orphan-note').count()).toBe(0);
      }
      await reviewPanel(alice.page).getByRole('button', { name: 'Accept run' }).click();
      await expect.poll(async () => (await server.api(`/api/docs/${id}/markdown`)).body).toBe(
        'Alice wrote THESE FIVE WORDS HERE. Bob wrote **this other sentence** too.',
      );
      await expect.poll(() => highlightedText(bob.page, comment)).toBe('this other sentence');
      expect(await card(bob.page, comment).locator('.orphan-note').count()).toBe(0);
    } finally {
      await agent.stop();
    }
  });
});
