import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { agentApi, replaceOp, sentRun } from '../helpers/runs.ts';
import { useBrowser, readText, reviewPanel, typeAtEnd, type Person } from '../helpers/browser.ts';

/*
 * Review change by change in the app (shared/PROTOCOL.md REV12, REV13): each item of the review
 * is a group `Change N` with `Accept change` and `Discard change`, and the review's keys
 * (Alt+Shift+N / P to move, A / D to decide the focused change) do the same. Everyone on the
 * document sees each decision as it happens, and typing goes on meanwhile.
 */

const server = useTestServer();
const people = useBrowser(server);

const open = (id: string, name: string): Promise<Person> => people.openDoc(id, server.token('editor', { name }));
const change = (page: Page, number: number) => reviewPanel(page).getByRole('group', { name: `Change ${number}` });

/** A run that uppercased the first three blocks (one instruction each), in review. */
async function runInReview() {
  const doc = await sentRun(server, 'one one\n\ntwo two\n\nthree three\n\nend', ['uppercase', 'uppercase', 'uppercase']);
  const bot = agentApi(server, server.token('agent'));
  expect((await bot.claim(doc.runId)).status).toBe(200);
  const ops = ['ONE ONE', 'TWO TWO', 'THREE THREE'].map((text, index) => replaceOp(doc.blocks[index], text, doc.instructionIds[index]));
  expect((await bot.ops(doc.runId, 'k1', ops)).status).toBe(200);
  expect((await bot.complete(doc.runId)).status).toBe(200);
  return doc;
}

describe('review change by change', () => {
  it('[REV12][REV13] one person accepts change 1 by keyboard and discards change 2 by its button; the other sees it live, and both keep typing', async () => {
    const doc = await runInReview();
    const alice = await open(doc.docId, 'Alice');
    const bob = await open(doc.docId, 'Bob');
    for (const person of [alice, bob]) {
      await expect.poll(() => readText(person.page)).toBe('ONE ONE\nTWO TWO\nTHREE THREE\nend');
      await change(person.page, 3).getByRole('button', { name: 'Accept change' }).waitFor();
    }

    // Bob types while the run is in review.
    await typeAtEnd(bob.page, ' by Bob');
    await expect.poll(() => readText(alice.page)).toBe('ONE ONE\nTWO TWO\nTHREE THREE\nend by Bob');

    // Alice: the next change from the text is change 1; Alt+Shift+A accepts it.
    await typeAtEnd(alice.page, '!');
    await alice.page.keyboard.press('Alt+Shift+N');
    await expect.poll(() => change(alice.page, 1).evaluate((group) => group === document.activeElement)).toBe(true);
    await alice.page.keyboard.press('Alt+Shift+A');
    await expect.poll(() => change(bob.page, 1).locator('.review-decision').textContent()).toBe('Accepted');
    expect(await change(bob.page, 1).getByRole('button', { name: 'Accept change' }).count()).toBe(0);

    await change(alice.page, 2).getByRole('button', { name: 'Discard change' }).click();
    for (const person of [alice, bob]) {
      await expect.poll(() => readText(person.page)).toBe('ONE ONE\ntwo two\nTHREE THREE\nend by Bob!');
      await expect.poll(() => change(person.page, 2).locator('.review-decision').textContent()).toBe('Discarded');
    }
    // The run is still in review: change 3 is undecided, and Accept run / Discard run stay.
    await change(bob.page, 3).getByRole('button', { name: 'Discard change' }).waitFor();
    await reviewPanel(bob.page).getByRole('button', { name: 'Accept run' }).waitFor();
    const run = (await server.api(`/api/runs/${doc.runId}`)).body;
    expect([run.state, ...run.items.map((item: { decision: string | null }) => item.decision)]).toEqual(['review', 'accepted', 'discarded', null]);

    // Typing is still possible for both.
    await typeAtEnd(bob.page, ' more');
    await expect.poll(() => readText(alice.page)).toBe('ONE ONE\ntwo two\nTHREE THREE\nend by Bob! more');

    // Bob moves back to change 3 from the text (previous wraps to the last) and discards it.
    await bob.page.keyboard.press('Alt+Shift+P');
    await expect.poll(() => change(bob.page, 3).evaluate((group) => group === document.activeElement)).toBe(true);
    await bob.page.keyboard.press('Alt+Shift+D');
    for (const person of [alice, bob]) {
      await expect.poll(() => readText(person.page)).toBe('ONE ONE\ntwo two\nthree three\nend by Bob! more');
      await reviewPanel(person.page).waitFor({ state: 'detached' });
    }
    expect((await server.api(`/api/runs/${doc.runId}`)).body.state).toBe('accepted');
  });

  it('[REV5][REV12] a reason typed before Discard change drafts an instruction for that change only', async () => {
    const doc = await runInReview();
    const alice = await open(doc.docId, 'Alice');
    const review = reviewPanel(alice.page);
    await change(alice.page, 3).getByRole('button', { name: 'Discard change' }).waitFor();
    await review.getByLabel('Reason for discarding (optional)').fill('Keep it lower case');
    await change(alice.page, 2).getByRole('button', { name: 'Discard change' }).click();
    await expect.poll(() => change(alice.page, 2).locator('.review-decision').textContent()).toBe('Discarded');
    await expect.poll(() => readText(alice.page)).toBe('ONE ONE\ntwo two\nTHREE THREE\nend');

    // One draft, on the paragraph whose change was discarded, saying what it replaced.
    const drafts = alice.page.getByRole('region', { name: 'Comments and instructions' }).getByRole('article').filter({ hasText: 'Discarded change' });
    await expect.poll(() => drafts.count()).toBe(1);
    const draft = drafts.first();
    expect(await draft.getAttribute('aria-label')).toBe('Instruction on “two two”');
    expect(await draft.locator('.card-state').textContent()).toBe('Draft');
    expect(await draft.locator('.card-text').textContent()).toBe('Keep it lower case');
    expect(await draft.locator('.card-discarded').textContent()).toBe('Discarded change: TWO TWO');
    const notes = (await server.api(`/api/docs/${doc.docId}`)).body.annotations as { state: string; blockId: string; turns: { text: string }[] }[];
    expect(notes.filter((note) => note.state === 'draft').map((note) => [note.blockId, note.turns.map((turn) => turn.text)])).toEqual([[doc.blocks[1].id, ['Keep it lower case']]]);

    // The others decided afterwards make no draft of their own.
    await review.getByRole('button', { name: 'Accept run' }).click();
    await review.waitFor({ state: 'detached' });
    const after = (await server.api(`/api/docs/${doc.docId}`)).body.annotations as { state: string }[];
    expect(after.filter((note) => note.state === 'draft')).toHaveLength(1);
    expect(await drafts.count()).toBe(1);
  });
});
