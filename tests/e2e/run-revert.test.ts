import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { agentApi, replaceOp, sentRun } from '../helpers/runs.ts';
import { useBrowser, readText, reviewPanel, typeAtEnd, type Person } from '../helpers/browser.ts';

/*
 * Taking a decision back in the app (shared/PROTOCOL.md REV8, REV9): `Revert run` in the
 * Recent runs list takes an accepted run's changes back; `Undo discard` puts a discarded run
 * back in review with its changes; `Undo revert` takes a revert back (REV14).
 */

const server = useTestServer();
const people = useBrowser(server);

const open = (id: string, name: string): Promise<Person> => people.openDoc(id, server.token('editor', { name }));

const recentRuns = (page: Page) => page.getByRole('region', { name: 'Recent runs' });

/** A run that uppercases the first block, in review. */
async function runInReview() {
  const doc = await sentRun(server, 'Keep this one.\n\nLast words.', ['uppercase']);
  const bot = agentApi(server, server.token('agent'));
  expect((await bot.claim(doc.runId)).status).toBe(200);
  expect((await bot.ops(doc.runId, 'k1', [replaceOp(doc.blocks[0], 'KEEP THIS ONE.', doc.instructionIds[0])])).status).toBe(200);
  expect((await bot.complete(doc.runId)).status).toBe(200);
  return doc;
}

describe('taking a run decision back', () => {
  it('[REV8][REV13] Accept run, then Revert run and Confirm revert, brings the text back and lists the run as reverted', async () => {
    const doc = await runInReview();
    const alice = await open(doc.docId, 'Alice');
    await reviewPanel(alice.page).getByRole('button', { name: 'Accept run' }).click();
    await expect.poll(() => readText(alice.page)).toBe('KEEP THIS ONE.\nLast words.');

    await recentRuns(alice.page).getByRole('button', { name: 'Revert run' }).click();
    // [REV13] It asks once: nothing is reverted until Confirm revert.
    const confirm = recentRuns(alice.page).getByRole('group', { name: 'Confirm revert' });
    await confirm.getByRole('button', { name: 'Confirm revert' }).waitFor();
    expect((await server.api(`/api/runs/${doc.runId}`)).body.reverted).toBeNull();
    expect(await readText(alice.page)).toBe('KEEP THIS ONE.\nLast words.');
    await confirm.getByRole('button', { name: 'Confirm revert' }).click();
    await expect.poll(() => readText(alice.page)).toBe('Keep this one.\nLast words.');
    await expect.poll(() => recentRuns(alice.page).getByRole('status').textContent()).toBe('Run reverted.');
    await expect.poll(() => recentRuns(alice.page).locator('.recent-run-what').textContent()).toBe('“uppercase”: accepted by Alice, reverted by Alice');
    expect(await recentRuns(alice.page).getByRole('button', { name: 'Revert run' }).count()).toBe(0);
  });

  it('[REV9] Discard run, then Undo discard, brings the changes back and the review panel with them, its buttons enabled', async () => {
    const doc = await runInReview();
    const alice = await open(doc.docId, 'Alice');
    await expect.poll(() => readText(alice.page)).toBe('KEEP THIS ONE.\nLast words.');
    await reviewPanel(alice.page).getByRole('button', { name: 'Discard run' }).click();
    await expect.poll(() => readText(alice.page)).toBe('Keep this one.\nLast words.');
    await expect.poll(() => reviewPanel(alice.page).count()).toBe(0);

    await recentRuns(alice.page).getByRole('button', { name: 'Undo discard' }).click();
    await expect.poll(() => readText(alice.page)).toBe('KEEP THIS ONE.\nLast words.');
    await reviewPanel(alice.page).getByRole('button', { name: 'Accept run' }).waitFor();
    expect((await server.api(`/api/runs/${doc.runId}`)).body.state).toBe('review');
    // The person who undid the discard can decide the run again, without a reload.
    await expect.poll(() => reviewPanel(alice.page).getByRole('button', { name: 'Accept run' }).isEnabled()).toBe(true);
    await reviewPanel(alice.page).getByRole('button', { name: 'Accept run' }).click();
    await expect.poll(async () => (await server.api(`/api/runs/${doc.runId}`)).body.state).toBe('accepted');
  });

  it('[REV14] Undo revert after Revert run brings the run’s changes back for both people, keeping what Bob typed since', async () => {
    const doc = await runInReview();
    const alice = await open(doc.docId, 'Alice');
    const bob = await open(doc.docId, 'Bob');
    await reviewPanel(alice.page).getByRole('button', { name: 'Accept run' }).click();
    await expect.poll(() => readText(bob.page)).toBe('KEEP THIS ONE.\nLast words.');
    await recentRuns(alice.page).getByRole('button', { name: 'Revert run' }).click();
    await recentRuns(alice.page).getByRole('button', { name: 'Confirm revert' }).click();
    await expect.poll(() => readText(bob.page)).toBe('Keep this one.\nLast words.');

    await typeAtEnd(bob.page, ' Bob was here.');
    await expect.poll(() => readText(alice.page)).toBe('Keep this one.\nLast words. Bob was here.');
    await recentRuns(bob.page).getByRole('button', { name: 'Undo revert' }).click();
    for (const person of [alice, bob]) {
      await expect.poll(() => readText(person.page)).toBe('KEEP THIS ONE.\nLast words. Bob was here.');
      await expect.poll(() => recentRuns(person.page).locator('.recent-run-what').textContent()).toBe('“uppercase”: accepted by Alice');
    }
    await expect.poll(() => recentRuns(bob.page).getByRole('status').textContent()).toBe('Revert undone: the run’s changes are back.');
    expect((await server.api(`/api/runs/${doc.runId}`)).body).toMatchObject({ state: 'accepted', reverted: null });
    // Revertible again, for everyone on the document.
    await recentRuns(alice.page).getByRole('button', { name: 'Revert run' }).waitFor();
  });
});
