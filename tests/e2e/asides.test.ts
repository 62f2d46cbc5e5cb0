import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import { useBrowser } from '../helpers/browser.ts';
import { asideAgent } from '../helpers/asides.ts';
import { agentApi, sentRun, waitForState } from '../helpers/runs.ts';
import { cannotSteer } from '../../agents/reference/reference-asides.ts';

/*
 * Asides in the app: a person asks the agent working on a run, or steers it, from the run panel;
 * the answer shows in every browser on the document.
 */

const server = useTestServer();
const people = useBrowser(server);

const handoffLabel = 'A suggested instruction: select the text it is about and press Instruct to pin it (Alt+Enter steers with it)';
const box = (page: Page) => page.getByRole('textbox', { name: 'Ask or steer' });
const routeHint = (page: Page) => page.locator('.aside-route-label');
const asideItems = (page: Page) => page.locator('tandem-aside-box .aside');
const answers = (page: Page) => asideItems(page).evaluateAll((items) =>
  items.map((item) => ({
    question: item.querySelector('.aside-text')?.textContent ?? '',
    status: item.querySelector('.aside-status')?.textContent?.trim() ?? '',
    answer: item.querySelector('.aside-answer')?.textContent ?? '',
  })),
);

describe('asides in the run panel', () => {
  it('[ASIDE1] [ASIDE2] [ASIDE6] shows what a text will do, sends it with Enter, and shows the answer in every browser; Alt+Enter steers', async () => {
    const doc = await sentRun(server, 'alpha\n\nbeta', ['uppercase']);
    let goOn = () => {};
    const released = new Promise<void>((resolve) => (goOn = resolve));
    let started = () => {};
    const working = new Promise<void>((resolve) => (started = resolve));
    const agent = startTestReferenceAgent(server, {
      pollSeconds: 1,
      beforeItem: async () => {
        started();
        await released;
      },
    });
    try {
      await working;
      const alice = await people.openDoc(doc.docId, server.token('editor', { name: 'Alice' }));
      const vera = await people.openDoc(doc.docId, server.token('viewer', { name: 'Vera' }));

      await box(alice.page).waitFor();
      await box(alice.page).fill('Where are you at?');
      await expect.poll(() => routeHint(alice.page).textContent()).toBe('Asks on the side');
      await box(alice.page).fill('Skip the tests.');
      await expect.poll(() => routeHint(alice.page).textContent()).toBe('Steers the run');
      await box(alice.page).fill('Where are you at?');
      await box(alice.page).press('Enter');

      const answered = { question: 'Where are you at?', status: 'Answered on the side', answer: 'Working on item 1 of 1: “uppercase”. So far 0 changed, 0 refused.' };
      for (const person of [alice, vera]) await expect.poll(() => answers(person.page), { timeout: 10_000 }).toEqual([answered]);
      expect(await box(alice.page).inputValue()).toBe('');
      // A viewer reads the asides but has no box.
      expect(await box(vera.page).count()).toBe(0);

      await box(alice.page).fill('Why uppercase?');
      await box(alice.page).press('Alt+Enter');
      const steered = { question: 'Why uppercase?', status: 'Sent to the run as a steer', answer: cannotSteer };
      for (const person of [alice, vera]) await expect.poll(() => answers(person.page), { timeout: 10_000 }).toEqual([answered, steered]);

      goOn();
      await waitForState(server, doc.runId, 'review', 10_000);
      await expect.poll(() => box(alice.page).count()).toBe(0);
    } finally {
      goOn();
      await agent.stop();
    }
  });

  it('[ASIDE5] [ASIDE11] offers the answer’s handoff under the box; Tab takes it into the box, where Enter does not send it as a steer', async () => {
    const doc = await sentRun(server, 'alpha', ['uppercase']);
    const token = server.token('agent');
    expect((await agentApi(server, token).claim(doc.runId)).status).toBe(200);
    const bob = await people.openDoc(doc.docId, server.token('commenter', { name: 'Bob' }));
    await box(bob.page).fill('What should I ask for next?');
    await box(bob.page).press('Enter');

    // The test plays the agent over the agent routes.
    const agent = asideAgent(server, token);
    const [aside] = (await agent.poll(doc.runId, 10)).body;
    await agent.answer(doc.runId, aside.asideId, { chunk: 'The intro is long. ' });
    await expect.poll(() => answers(bob.page)).toEqual([{ question: 'What should I ask for next?', status: 'Answering…', answer: 'The intro is long. ' }]);
    await agent.answer(doc.runId, aside.asideId, { chunk: 'Shorten it.', done: true, handoff: 'Shorten the intro to two sentences' });
    await expect.poll(() => bob.page.locator('.aside-handoff-text').textContent()).toBe('Shorten the intro to two sentences');

    await box(bob.page).focus();
    await bob.page.keyboard.press('Tab');
    expect(await box(bob.page).inputValue()).toBe('Shorten the intro to two sentences');
    expect(await bob.page.locator('.aside-handoff').count()).toBe(0);
    await expect.poll(() => routeHint(bob.page).textContent()).toBe(handoffLabel);

    // Enter keeps the suggestion in the box and says how to pin it.
    await bob.page.keyboard.press('Enter');
    await expect.poll(() => bob.page.locator('tandem-aside-box [role="alert"]').textContent()).toBe(handoffLabel);
    expect(await box(bob.page).inputValue()).toBe('Shorten the intro to two sentences');
    // Edited into a question, it is asked: the agent receives that question, and no steer before it.
    await box(bob.page).fill('Shorten the intro to two sentences?');
    await expect.poll(() => routeHint(bob.page).textContent()).toBe('Asks on the side');
    await box(bob.page).press('Enter');
    const received = (await agent.poll(doc.runId, 10)).body;
    expect(received.map(({ kind, text }: { kind: string; text: string }) => ({ kind, text }))).toEqual([
      { kind: 'question', text: 'Shorten the intro to two sentences?' },
    ]);
    await agent.answer(doc.runId, received[0].asideId, { answer: 'Yes.', done: true });
    await expect.poll(() => answers(bob.page)).toHaveLength(2);
  });

  it('[ASIDE8] says so when the run ended before the agent answered a question', async () => {
    const doc = await sentRun(server, 'alpha', ['uppercase']);
    const token = server.token('agent');
    expect((await agentApi(server, token).claim(doc.runId)).status).toBe(200);
    const cora = await people.openDoc(doc.docId, server.token('commenter', { name: 'Cora' }));
    await box(cora.page).fill('Are you nearly done?');
    await box(cora.page).press('Enter');
    const agent = asideAgent(server, token);
    expect((await agent.poll(doc.runId, 10)).body).toHaveLength(1);
    // The agent ends the run without answering.
    expect((await agentApi(server, token).complete(doc.runId)).status).toBe(200);
    const notice = cora.page.locator('.aside-notice');
    await expect.poll(() => notice.textContent().then((text) => text?.replace(/\s+/g, ' ').trim())).toBe(
      'No answer to “Are you nearly done?”: The run ended before the agent answered. Dismiss',
    );
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await notice.waitFor({ state: 'detached' });
  });
});
