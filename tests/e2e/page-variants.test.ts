import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { agentApi, getRun } from '../helpers/runs.ts';
import { byTag, createPage, landingHtml, pageOf } from '../helpers/pages.ts';
import { reviewPanel, useBrowser, type Person } from '../helpers/browser.ts';

/*
 * Variants on a page in the app (shared/PROTOCOL.md VAR1, VAR2 with PAGE7, PAGE9): the form
 * that pins an instruction to an element asks for a number of answers, the review of an item
 * with candidates says which one the run stages, and `Next variant` stages another; the
 * candidate in the frame follows for everyone while the page itself is written only on Accept.
 * The agent is driven through its HTTP API.
 */

const server = useTestServer();
const people = useBrowser(server);

const open = (id: string, name: string): Promise<Person> => people.openDoc(id, server.token('editor', { name }));
const frame = (page: Page) => page.frameLocator('iframe[title="Page"]');
const change = (page: Page) => reviewPanel(page).getByRole('group', { name: 'Change 1' });
const variantLabel = (page: Page) => change(page).locator('.review-variant-label').textContent();

const heading = 'Welcome to the best landing page ever written';
const candidates = ['<h1>Hello there</h1>', '<h1 class="big">Welcome, <em>reader</em></h1>', '<h1>Good to see you</h1>'];
/** The text each candidate's heading reads. */
const readings = ['Hello there', 'Welcome, reader', 'Good to see you'];

/** Alice and Bob both read candidate `index` in the frame's candidate, outlined as change 1, and the review says so. */
async function bothSee(alice: Person, bob: Person, index: number): Promise<void> {
  for (const person of [alice, bob]) {
    await expect.poll(() => variantLabel(person.page)).toBe(`Variant ${index + 1} of 3`);
    await expect.poll(() => frame(person.page).locator('h1').textContent()).toBe(readings[index]);
    expect(await frame(person.page).locator('h1').getAttribute('data-tandem-changed')).toBe('1');
  }
}

describe('variants on a page in the app', () => {
  it('[VAR1][VAR2] Alice asks for three headings, steps to the second for Bob too; Accept writes the one shown', async () => {
    const page = await createPage(server, landingHtml);
    const h1 = byTag(page.elements, 'h1');
    const alice = await open(page.id, 'Alice');
    const bob = await open(page.id, 'Bob');

    // Alice: the heading from the list of elements, three variants, the work order, Instruct.
    await alice.page.getByLabel('Element').selectOption(h1.id);
    const form = alice.page.getByRole('form', { name: 'Note on an element' });
    const variants = form.getByRole('combobox', { name: 'Variants' });
    expect(await variants.inputValue()).toBe('1');
    await variants.selectOption('3');
    await form.getByLabel('Note').fill('a warmer title');
    await form.getByRole('button', { name: 'Instruct' }).click();
    await form.waitFor({ state: 'detached' });
    await alice.page.locator('.page-note').filter({ hasText: 'a warmer title' }).waitFor();

    // The Send dialog says how many answers the instruction asks for.
    await alice.page.getByRole('button', { name: 'Send 1 to agent' }).click();
    const dialog = alice.page.getByRole('dialog');
    await expect.poll(() => dialog.locator('.send-item').innerText()).toMatch(/a warmer title\s*3 variants/);
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });

    const runId = (await server.api(`/api/docs/${page.id}`)).body.runs[0].runId as string;
    const [item] = (await getRun(server, runId)).items;
    expect(item.variantsWanted).toBe(3);
    const { instructionId } = item;

    // The agent proposes three headings.
    const bot = agentApi(server, server.token('agent'));
    expect((await bot.claim(runId)).status).toBe(200);
    const op = { op: 'propose_variants', elementId: h1.id, expectHash: h1.hash, instructionId, candidates };
    const applied = await bot.ops(runId, 'k1', [op]);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect((await bot.complete(runId)).status).toBe(200);

    // Both look at the candidate: the first heading, staged; the source keeps the old one.
    for (const person of [alice, bob]) {
      await reviewPanel(person.page).waitFor();
      expect(await frame(person.page).locator('h1').textContent()).toBe(heading);
      await person.page.getByRole('button', { name: 'Candidate' }).click();
    }
    await bothSee(alice, bob, 0);

    // Next variant stages the second for both; the page itself is untouched.
    await change(alice.page).getByRole('button', { name: 'Next variant' }).click();
    await bothSee(alice, bob, 1);
    expect(await frame(bob.page).locator('h1').getAttribute('class')).toBe('big');
    expect((await pageOf(server, page.id)).html).toContain(heading);
    await bob.page.getByRole('button', { name: 'Source' }).click();
    await expect.poll(() => frame(bob.page).locator('h1').textContent()).toBe(heading);

    // Accept change: the page holds the candidate shown, in everyone's frame and through the API.
    await change(alice.page).getByRole('button', { name: 'Accept change' }).click();
    for (const person of [alice, bob]) {
      await reviewPanel(person.page).waitFor({ state: 'detached' });
      await expect.poll(() => frame(person.page).locator('h1').textContent()).toBe(readings[1]);
      expect(await frame(person.page).locator('h1 em').textContent()).toBe('reader');
      expect(await frame(person.page).locator('[data-tandem-changed]').count()).toBe(0);
    }
    const run = await getRun(server, runId);
    expect([run.state, run.items[0].decision, run.items[0].chosen]).toEqual(['accepted', 'accepted', 1]);
    const written = (await pageOf(server, page.id)).html;
    expect(written).toMatch(/<h1 class="big"[^>]*>Welcome, <em[^>]*>reader<\/em><\/h1>/);
    expect(written).not.toContain(heading);
  });
});
