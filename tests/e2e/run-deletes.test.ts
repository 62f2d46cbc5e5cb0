import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { agentApi, deleteOp, sentRun } from '../helpers/runs.ts';
import { useBrowser, readText, reviewPanel, type Person } from '../helpers/browser.ts';

/*
 * A block a run deletes stays in the text, struck through for everyone, until the run is
 * decided (shared/PROTOCOL.md OP7); when a person changes it meanwhile, the review panel says
 * Accept will not apply the delete, and Accept keeps the block (REV6).
 */

const server = useTestServer();
const people = useBrowser(server);

const open = (id: string, name: string): Promise<Person> => people.openDoc(id, server.token('editor', { name }));

const pendingBlock = (page: Page, blockId: string) => page.locator(`.ProseMirror [data-block-id="${blockId}"]`);

describe('a block the run deletes', () => {
  it('[OP7][REV6] is struck through for everyone; changed by a person, the panel says the delete is not applied and Accept keeps it', async () => {
    const doc = await sentRun(server, 'Keep this one.\n\nDrop this one.\n\nLast words.', ['uppercase', 'delete']);
    const alice = await open(doc.docId, 'Alice');
    const bob = await open(doc.docId, 'Bob');

    const bot = agentApi(server, server.token('agent'));
    expect((await bot.claim(doc.runId)).status).toBe(200);
    const drop = doc.blocks[1];
    const deleted = await bot.ops(doc.runId, 'k1', [deleteOp(drop, doc.instructionIds[1])]);
    expect(deleted.status).toBe(200);
    expect((await bot.complete(doc.runId)).status).toBe(200);

    for (const person of [alice, bob]) {
      const block = pendingBlock(person.page, drop.id);
      await block.and(person.page.locator('.tandem-deleting')).waitFor();
      expect(await block.getAttribute('role')).toBe('deletion');
      expect(await block.evaluate((el) => getComputedStyle(el).textDecorationLine)).toBe('line-through');
      // Screen readers hear that it is deleted; the text itself is unchanged.
      expect(await block.locator('.visually-hidden').textContent()).toBe('deleted by the run: ');
      expect(await readText(person.page)).toBe('Keep this one.\nDrop this one.\nLast words.');
      await reviewPanel(person.page).waitFor();
    }
    await expect(reviewPanel(alice.page).locator('.review-not-applied').count()).resolves.toBe(0);

    // Bob types in the block the run deleted; Alice's panel says Accept will keep it.
    await pendingBlock(bob.page, drop.id).click();
    await bob.page.keyboard.press('End');
    await bob.page.keyboard.type(' Bob needs it');
    const note = reviewPanel(alice.page).locator('.review-not-applied');
    await expect.poll(() => note.textContent(), { timeout: 10_000 }).toBe('Not applied: changed by Bob meanwhile; the block is kept.');
    expect(await note.getAttribute('role')).toBe('note');

    await reviewPanel(alice.page).getByRole('button', { name: 'Accept run' }).click();
    for (const person of [alice, bob]) {
      await expect.poll(() => person.page.locator('.tandem-deleting').count()).toBe(0);
      await expect.poll(() => readText(person.page)).toBe('Keep this one.\nDrop this one. Bob needs it\nLast words.');
    }
    const run = (await server.api(`/api/runs/${doc.runId}`)).body;
    expect(run.changes[0].note).toBe('Not applied: changed by Bob meanwhile; the block is kept.');
  });
});
