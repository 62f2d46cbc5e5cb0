import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { agentApi, blocksOf, getRun, replaceOp } from '../helpers/runs.ts';
import { changesInText, clickBefore, pinAnnotation, readText, reviewPanel, sendInstructions, useBrowser, type Person } from '../helpers/browser.ts';

/*
 * Two changes in one paragraph, reviewed apart in the app (shared/PROTOCOL.md REV12, REV13):
 * two instructions pinned to different words of one paragraph, each answered by its own batch
 * of an agent rewriting that paragraph. Discard change on one of them takes back its word only,
 * for everyone on the document; the other change stays in review, and what a person typed in
 * the paragraph meanwhile stays.
 */

const server = useTestServer();
const people = useBrowser(server);

const open = (id: string, name: string): Promise<Person> => people.openDoc(id, server.token('editor', { name }));
const change = (page: Page, number: string) => reviewPanel(page).getByRole('group', { name: `Change ${number}` });

describe('two changes in one paragraph', () => {
  it('[REV12][REV13] Discard change on one word takes back that word for both people, keeps the other change in review and the typing made before', async () => {
    const docId = await server.createDoc('Plan', 'alpha one two\n\nend');
    const alice = await open(docId, 'Alice');
    const bob = await open(docId, 'Bob');
    await expect.poll(() => readText(bob.page)).toBe('alpha one two\nend');
    const first = await pinAnnotation(alice.page, 'instruction', 'alpha', 'uppercase the first word');
    const last = await pinAnnotation(alice.page, 'instruction', 'two', 'uppercase the last word');
    await sendInstructions(alice.page, 2);

    // The agent answers each instruction in a batch of its own, on the paragraph as it is then.
    const bot = agentApi(server, server.token('agent'));
    const queued = ((await bot.queued()).body as { runId: string; docId: string; items: { instructionId: string; quote: string }[] }[]).find((run) => run.docId === docId);
    if (!queued) throw new Error('the run is not queued');
    expect(queued.items.map((item) => [item.instructionId, item.quote]).sort()).toEqual([[first, 'alpha'], [last, 'two']].sort());
    expect((await bot.claim(queued.runId)).status).toBe(200);
    const paragraph = async () => (await blocksOf(server, docId))[0];
    expect((await bot.ops(queued.runId, 'k1', [replaceOp(await paragraph(), 'ALPHA one two', first)])).status).toBe(200);
    expect((await bot.ops(queued.runId, 'k2', [replaceOp(await paragraph(), 'ALPHA one TWO', last)])).status).toBe(200);
    expect((await bot.complete(queued.runId)).status).toBe(200);

    for (const person of [alice, bob]) {
      await expect.poll(() => readText(person.page)).toBe('ALPHA one TWO\nend');
      await expect.poll(async () => Object.keys(await changesInText(person.page)).sort()).toEqual([first, last].sort());
    }
    const numbers = await changesInText(alice.page);
    const firstNumber = numbers[first].number;
    const lastNumber = numbers[last].number;
    if (firstNumber === null || lastNumber === null) throw new Error('a change has no number');
    await change(alice.page, firstNumber).getByRole('button', { name: 'Discard change' }).waitFor();

    // Alice types inside the paragraph, between the two changes, before she decides.
    await clickBefore(alice.page, 'one');
    await alice.page.keyboard.type('and ');
    await expect.poll(() => readText(bob.page)).toBe('ALPHA and one TWO\nend');

    await change(alice.page, firstNumber).getByRole('button', { name: 'Discard change' }).click();
    for (const person of [alice, bob]) {
      // The first word is back as it was; Alice's words and the other change stay.
      await expect.poll(() => readText(person.page)).toBe('alpha and one TWO\nend');
      await expect.poll(() => change(person.page, firstNumber).locator('.review-decision').textContent()).toBe('Discarded');
      await expect.poll(async () => Object.fromEntries(Object.entries(await changesInText(person.page)).map(([id, each]) => [id, each.text]))).toEqual({ [last]: 'TWO' });
      await change(person.page, lastNumber).getByRole('button', { name: 'Discard change' }).waitFor();
    }
    const run = await getRun(server, queued.runId);
    expect(run.state).toBe('review');
    expect(Object.fromEntries(run.items.map((item) => [item.instructionId, item.decision]))).toEqual({ [first]: 'discarded', [last]: null });
  });
});
