import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { useBrowser, pinAnnotation, progressLine, readText, sendInstructions, type Person } from '../helpers/browser.ts';

/* Cancel run (shared/PROTOCOL.md RUN6) in the app: a run nobody works on can be withdrawn, and the document sent again. */

const server = useTestServer();
const people = useBrowser(server);

const open = (id: string, role: 'editor' | 'viewer', name: string): Promise<Person> => people.openDoc(id, server.token(role, { name }));
const cardState = (page: Page, id: string) => page.locator(`.annotation-card[data-annotation-id="${id}"] .card-state`).textContent();
const cancelButton = (page: Page) => page.getByRole('button', { name: 'Cancel run' });

describe('Cancel run', () => {
  it('[RUN6] withdraws a run waiting for an agent and one an agent works on; Send works again after each', async () => {
    const id = await server.createDoc('Cancel', 'Some words to work on.');
    const alice = await open(id, 'editor', 'Alice');
    const vera = await open(id, 'viewer', 'Vera');
    try {
      const instruction = await pinAnnotation(alice.page, 'instruction', 'Some words', 'uppercase');
      await sendInstructions(alice.page, 1);
      for (const person of [alice, vera]) await expect.poll(() => progressLine(person.page)).toBe('Sent · waiting for an agent');
      await cancelButton(alice.page).waitFor();
      expect(await cancelButton(vera.page).count()).toBe(0);

      // With the mouse, while no agent is there.
      await cancelButton(alice.page).click();
      for (const person of [alice, vera]) await expect.poll(() => progressLine(person.page)).toBe('');
      await cancelButton(alice.page).waitFor({ state: 'detached' });
      await expect.poll(() => cardState(alice.page, instruction)).toBe('Ready');
      await expect.poll(() => alice.page.locator('.queue-count').textContent()).toBe('1 instruction ready');
      expect(await alice.page.getByRole('button', { name: 'Send 1 to agent' }).isDisabled()).toBe(false);
      const first = (await server.api(`/api/docs/${id}`)).body.runs[0];
      expect(first.state).toBe('cancelled');

      // Sent again, claimed by a hand-driven agent that writes, then cancelled from the keyboard.
      await sendInstructions(alice.page, 1);
      await expect.poll(() => progressLine(alice.page)).toBe('Sent · waiting for an agent');
      const run = (await server.api(`/api/docs/${id}`)).body.runs.find((each: { state: string }) => each.state === 'queued');
      const token = server.token('agent', { name: 'Test agent' });
      const claimed = await server.api(`/api/agent/runs/${run.runId}/claim`, { method: 'POST', token });
      expect(claimed.status).toBe(200);
      const block = claimed.body.document.blocks[0];
      const ops = [{ op: 'replace_block', blockId: block.id, markdown: 'SOME WORDS to work on.', expectHash: block.hash, instructionId: instruction }];
      expect((await server.api(`/api/agent/runs/${run.runId}/ops`, { method: 'POST', token, body: { idempotencyKey: 'k1', ops } })).status).toBe(200);
      await expect.poll(() => readText(alice.page)).toBe('SOME WORDS to work on.');
      await expect.poll(() => progressLine(alice.page)).toBe('Test agent is working on 1 instruction…');

      await cancelButton(alice.page).focus();
      await alice.page.keyboard.press('Enter');
      for (const person of [alice, vera]) {
        await expect.poll(() => readText(person.page)).toBe('Some words to work on.');
        await expect.poll(() => progressLine(person.page)).toBe('');
      }
      await expect.poll(() => cardState(alice.page, instruction)).toBe('Ready');
      const heartbeat = await server.api(`/api/agent/runs/${run.runId}/heartbeat`, { method: 'POST', token });
      expect([heartbeat.status, heartbeat.body.error.code]).toEqual([409, 'NOT_CLAIMED']);
      await sendInstructions(alice.page, 1);
      await expect.poll(() => progressLine(alice.page)).toBe('Sent · waiting for an agent');
    } finally {
      for (const person of [alice, vera]) await person.context.close();
    }
  });
});
