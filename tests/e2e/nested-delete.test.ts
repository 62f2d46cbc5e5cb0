import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import type { RunningAgent } from '../../agents/reference/reference-agent.ts';
import { blocksOf } from '../helpers/runs.ts';
import { useBrowser, pinAnnotation, readText, reviewPanel, sendInstructions, type Person } from '../helpers/browser.ts';

/*
 * A delete pinned to one item of a list deletes that item alone (shared/PROTOCOL.md OP12): the
 * reference agent deletes the item the pin is in, the review strikes through only it, for
 * everyone, and Discard gives it back.
 */

const server = useTestServer();
const people = useBrowser(server);

const open = (id: string, name: string): Promise<Person> => people.openDoc(id, server.token('editor', { name }));

/** The text of every list item the editor shows struck through, pending deletion. */
const struckItems = (page: Page) =>
  page.locator('.ProseMirror .tandem-deleting').evaluateAll((nodes) =>
    nodes.map((node) => {
      const copy = node.cloneNode(true) as HTMLElement;
      copy.querySelectorAll('.visually-hidden, .ProseMirror-widget').forEach((el) => el.remove());
      return `${node.tagName.toLowerCase()}:${(copy.textContent ?? '').trim()}`;
    }),
  );

describe('a delete pinned to a list item', () => {
  it('[OP12][OP7] deletes only that item: struck through alone for everyone, and Discard restores it', async () => {
    const id = await server.createDoc('Nested', 'Shopping:\n\n- apples\n- bread loaves\n- cheese\n\nThat is all.');
    const before = await blocksOf(server, id);
    const second = before.filter((block) => block.type === 'list_item')[1];
    const alice = await open(id, 'Alice');
    const bob = await open(id, 'Bob');
    let agent: RunningAgent | null = null;
    try {
      const text = 'Shopping:\napplesbread loavescheese\nThat is all.';
      await expect.poll(() => readText(alice.page)).toBe(text);
      await pinAnnotation(alice.page, 'instruction', 'bread loaves', 'delete');
      await sendInstructions(alice.page, 1);
      agent = startTestReferenceAgent(server, { pollSeconds: 1 });

      for (const person of [alice, bob]) {
        await reviewPanel(person.page).waitFor({ timeout: 20_000 });
        await expect.poll(() => struckItems(person.page)).toEqual(['li:bread loaves']);
        const struck = person.page.locator(`.ProseMirror li[data-block-id="${second.id}"]`);
        expect(await struck.getAttribute('role')).toBe('deletion');
        expect(await struck.evaluate((el) => getComputedStyle(el).textDecorationLine)).toBe('line-through');
        expect(await struck.locator('.visually-hidden').textContent()).toBe('deleted by the run: ');
        // The other items are not struck, and the text is all still there until the decision.
        expect(await person.page.locator('.ProseMirror li:not(.tandem-deleting)').count()).toBe(2);
        expect(await readText(person.page)).toBe(text);
      }
      // The API reads the text as Accept would leave it: the other two items only.
      const during = (await blocksOf(server, id)).filter((block) => block.type === 'list_item');
      expect(during.map((block) => block.markdown)).toEqual(['apples', 'cheese']);

      await reviewPanel(bob.page).getByRole('button', { name: 'Discard run' }).click();
      for (const person of [alice, bob]) {
        await reviewPanel(person.page).waitFor({ state: 'detached' });
        await expect.poll(() => struckItems(person.page)).toEqual([]);
        await expect.poll(() => readText(person.page)).toBe(text);
      }
      expect(await blocksOf(server, id)).toEqual(before);
    } finally {
      await agent?.stop();
    }
  });
});
