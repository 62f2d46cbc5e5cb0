import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { agentApi, blocksOf, getRun, markdownOf } from '../helpers/runs.ts';
import { annotationCards, changesInText, readText, reviewPanel, selectText, useBrowser, type Person } from '../helpers/browser.ts';

/*
 * Variants in the app (shared/PROTOCOL.md VAR1, VAR2): the Instruct box asks for a number of
 * answers, the Send dialog says so, and the review of an item with candidates says which one the
 * text shows, with `Previous variant` and `Next variant` to show another, for everyone on the
 * document; Accept keeps the one shown. The agent is driven through its HTTP API.
 */

const server = useTestServer();
const people = useBrowser(server);

const open = (id: string, name: string): Promise<Person> => people.openDoc(id, server.token('editor', { name }));
const change = (page: Page) => reviewPanel(page).getByRole('group', { name: 'Change 1' });
const variantLabel = (page: Page) => change(page).locator('.review-variant-label').textContent();

const rest = '\nThe end.';
const candidates = ['The dog sat on the mat.', 'A fox sat on the mat.', 'An owl sat on the mat.'];

/** Alice and Bob both read candidate `index` in the text, and the review says so. */
async function bothSee(alice: Person, bob: Person, index: number): Promise<void> {
  for (const person of [alice, bob]) {
    await expect.poll(() => readText(person.page)).toBe(`${candidates[index]}${rest}`);
    await expect.poll(() => variantLabel(person.page)).toBe(`Variant ${index + 1} of 3`);
  }
}

describe('variants in the app', () => {
  it('[VAR1][VAR2] Alice asks for three answers and steps through them for Bob too; Accept keeps the third', async () => {
    const docId = await server.createDoc('Variants', 'The cat sat on the mat.\n\nThe end.');
    const alice = await open(docId, 'Alice');
    const bob = await open(docId, 'Bob');

    // Alice: select the sentence, Instruct, three variants, the work order, Enter.
    await selectText(alice.page, 'The cat sat on the mat.');
    await alice.page.getByRole('button', { name: 'Instruct', exact: true }).click();
    const variants = alice.page.getByRole('combobox', { name: 'Variants' });
    expect(await variants.inputValue()).toBe('1');
    await variants.selectOption('3');
    const box = alice.page.getByRole('textbox', { name: 'Instruction', exact: true });
    await box.fill('try other animals');
    await box.press('Enter');
    await box.waitFor({ state: 'detached' });
    await annotationCards(alice.page).filter({ hasText: 'try other animals' }).waitFor();

    // The Send dialog says how many answers the instruction asks for.
    await alice.page.getByRole('button', { name: 'Send 1 to agent' }).click();
    const dialog = alice.page.getByRole('dialog');
    await expect.poll(() => dialog.locator('.send-item').innerText()).toMatch(/try other animals\s*3 variants/);
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });

    const runId = (await server.api(`/api/docs/${docId}`)).body.runs[0].runId as string;
    const [item] = (await getRun(server, runId)).items;
    expect(item.variantsWanted).toBe(3);
    const { instructionId } = item;

    // The agent proposes three candidates for the sentence.
    const [block] = await blocksOf(server, docId);
    const bot = agentApi(server, server.token('agent'));
    expect((await bot.claim(runId)).status).toBe(200);
    const op = { op: 'propose_variants', blockId: block.id, expectHash: block.hash, instructionId, candidates };
    const applied = await bot.ops(runId, 'k1', [op]);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect((await bot.complete(runId)).status).toBe(200);

    // The first candidate is in the text, as the run's change, for both.
    await bothSee(alice, bob, 0);
    for (const person of [alice, bob]) await expect.poll(async () => Object.keys(await changesInText(person.page))).toEqual([instructionId]);

    // Next variant by mouse, Previous variant by keyboard (Tab to it, Enter).
    await change(alice.page).getByRole('button', { name: 'Next variant' }).click();
    await bothSee(alice, bob, 1);
    await alice.page.keyboard.press('Shift+Tab');
    await expect.poll(() => change(alice.page).getByRole('button', { name: 'Previous variant' }).evaluate((button) => button === document.activeElement)).toBe(true);
    await alice.page.keyboard.press('Enter');
    await bothSee(alice, bob, 0);

    // Next twice: Alt+ArrowRight in the change's group, then the button; Accept change keeps the third.
    await alice.page.keyboard.press('Alt+ArrowRight');
    await bothSee(alice, bob, 1);
    await change(alice.page).getByRole('button', { name: 'Next variant' }).click();
    await bothSee(alice, bob, 2);
    await change(alice.page).getByRole('button', { name: 'Accept change' }).click();
    for (const person of [alice, bob]) {
      await reviewPanel(person.page).waitFor({ state: 'detached' });
      await expect.poll(() => changesInText(person.page)).toEqual({});
      expect(await readText(person.page)).toBe(`${candidates[2]}${rest}`);
    }
    const run = await getRun(server, runId);
    expect([run.state, run.items[0].decision, run.items[0].chosen]).toEqual(['accepted', 'accepted', 2]);
    expect(await markdownOf(server, docId)).toBe(`${candidates[2]}\n\nThe end.`);
  });
});
