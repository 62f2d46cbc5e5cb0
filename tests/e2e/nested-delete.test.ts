import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import type { RunningAgent } from '../../agents/reference/reference-agent.ts';
import { agentApi, blocksOf, createDoc, deleteOp, instruct } from '../helpers/runs.ts';
import { useBrowser, pinAnnotation, readText, reviewPanel, sendInstructions, type Person } from '../helpers/browser.ts';

/*
 * A delete pinned to one item of a list deletes that item alone (shared/PROTOCOL.md OP12): the
 * reference agent deletes the item the pin is in, the review strikes through only it, for
 * everyone, and Discard gives it back. When a person types in a nested block a run deletes,
 * the review says Accept will not apply the delete, and Accept keeps it (REV6).
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

  it('[OP12][REV6][REV12] says under the change that the delete of a list item a person typed in is not applied, and Accept change keeps it', async () => {
    const doc = await createDoc(server, 'Shopping:\n\n- apples\n- bread loaves\n- cheese\n\n> quoted words');
    const second = doc.blocks.filter((block) => block.type === 'list_item')[1];
    const quoted = doc.blocks.find((block) => block.type === 'paragraph' && block.markdown === 'quoted words')!;
    const onItem = await instruct(server, doc.id, second.id, 'delete');
    const onQuote = await instruct(server, doc.id, quoted.id, 'delete');
    const runId = (await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' })).body.runId as string;
    const bot = agentApi(server, server.token('agent'));
    expect((await bot.claim(runId)).status).toBe(200);
    expect((await bot.ops(runId, 'k1', [deleteOp(second, onItem), deleteOp(quoted, onQuote)])).status).toBe(200);
    expect((await bot.complete(runId)).status).toBe(200);

    const alice = await open(doc.id, 'Alice');
    const bob = await open(doc.id, 'Bob');
    const change1 = reviewPanel(alice.page).getByRole('group', { name: 'Change 1' });
    await change1.waitFor({ timeout: 20_000 });
    expect(await reviewPanel(alice.page).locator('.review-not-applied').count()).toBe(0);

    // Bob types in the struck-through item; Alice's review says so under change 1 only.
    await bob.page.locator(`.ProseMirror li[data-block-id="${second.id}"] p`).click();
    await bob.page.keyboard.press('End');
    await bob.page.keyboard.type(' for Bob');
    const note = change1.locator('.review-not-applied');
    await expect.poll(() => note.textContent(), { timeout: 10_000 }).toBe('Not applied: changed by Bob meanwhile; the block is kept.');
    expect(await reviewPanel(alice.page).getByRole('group', { name: 'Change 2' }).locator('.review-not-applied').count()).toBe(0);

    await change1.getByRole('button', { name: 'Accept change' }).click();
    for (const person of [alice, bob]) {
      const first = reviewPanel(person.page).getByRole('group', { name: 'Change 1' });
      await first.getByText('Accepted', { exact: true }).waitFor();
      await expect.poll(() => first.locator('.review-not-applied').textContent()).toBe('Not applied: changed by Bob meanwhile; the block is kept.');
      // The item stays, unmarked; the quoted paragraph of change 2 is still pending.
      await expect.poll(() => struckItems(person.page)).toEqual(['p:quoted words']);
      await expect.poll(() => readText(person.page)).toBe('Shopping:\napplesbread loaves for Bobcheese\nquoted words');
    }
    const run = (await server.api(`/api/runs/${runId}`)).body;
    expect(run.changes[0].note).toBe('Not applied: changed by Bob meanwhile; the block is kept.');
  });
});
