import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startFakeOpenAi, type ChatRequestBody, type FakeOpenAi } from '../helpers/fake-openai.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { pinAnnotation, readText, reviewPanel, sendInstructions, useBrowser } from '../helpers/browser.ts';
import { modelAgentName } from '../../agents/model/model-agent.ts';

/*
 * The model agent as people meet it: a server with TANDEM_AGENT=openai, pointed at a scripted
 * OpenAI-compatible model on 127.0.0.1, and a person in Chromium who pins an instruction,
 * sends it, watches the agent's activity in the run panel and accepts the run.
 */

let server: TestServer | null = null;
let model: FakeOpenAi | null = null;
const people = useBrowser({
  get url() {
    if (!server) throw new Error('The server starts in the test.');
    return server.url;
  },
});

afterEach(async () => {
  await server?.dispose();
  await model?.close();
  server = null;
  model = null;
});

/** The run's items, as the first message carries them between `<run-items>` and `</run-items>` (MODEL1). */
function runItems(body: ChatRequestBody): { instructionId: string; targetBlockId: string }[] {
  const first = body.messages.find((message) => message.role === 'user')?.content ?? '';
  const json = /<run-items>\n([\s\S]*)\n<\/run-items>/.exec(first)?.[1] ?? '[]';
  return JSON.parse(json.replace(/\\u003c/g, '<'));
}

const activityPanel = (page: Page) => page.getByRole('region', { name: 'Agent activity' });
const activityLines = (page: Page) => activityPanel(page).getByRole('log').locator('.activity-text').allTextContents();

describe('the model agent in the app', () => {
  it('[MODEL7] [MODEL8] [RUN7] shows the agent\'s model and activity while it works; Accept run keeps its rewrite', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    model = await startFakeOpenAi([
      { toolCalls: [{ name: 'read_document', arguments: {} }], usage: { promptTokens: 1200, completionTokens: 30, cachedTokens: 1000 } },
      (body) => {
        const [item] = runItems(body);
        return { toolCalls: [{ name: 'rewrite_block', arguments: { instructionId: item.instructionId, blockId: item.targetBlockId, instruction: 'Make it formal' } }] };
      },
      async () => {
        // The rewrite waits until the person has seen the agent at work.
        await held;
        return { text: 'The swift brown fox leaps over the idle dog.' };
      },
      { text: 'Rewrote the first paragraph formally.' },
    ]);
    server = await startTestServer({ agent: 'openai', openai: { baseURL: model.baseURL, apiKey: '', model: 'fake-model', callTimeoutMs: 20_000 } });
    const id = await server.createDoc('Model run', 'The quick brown fox jumps over the lazy dog.\n\nA second paragraph.');
    const alice = await people.openDoc(id, server.token('editor', { name: 'Alice' }));

    await pinAnnotation(alice.page, 'instruction', 'quick brown fox', 'Make it formal');
    // [RUN7] The queue bar names the agent that would take the run, with its model.
    await alice.page.getByText(`Agent connected: ${modelAgentName} (fake-model)`, { exact: true }).waitFor({ timeout: 15_000 });
    await sendInstructions(alice.page, 1);

    const panel = activityPanel(alice.page);
    await panel.waitFor({ timeout: 20_000 });
    await expect.poll(() => panel.locator('.run-agent').innerText(), { timeout: 20_000 }).toBe('Model agent · fake-model');
    await expect
      .poll(() => activityLines(alice.page), { timeout: 20_000 })
      .toEqual(['working on 1 instruction', 'reading the document', 'rewriting block 1 for instruction 1']);
    expect(await panel.getByRole('log').getAttribute('aria-live')).toBe('polite');
    // The first two calls: 1,200 + 100 tokens in (1,000 cached), 30 + 20 out.
    await expect.poll(() => panel.locator('.run-usage').innerText()).toBe('Tokens: 1,300 in (1,000 cached) · 50 out');
    release();

    await reviewPanel(alice.page).waitFor({ timeout: 20_000 });
    await expect.poll(() => activityLines(alice.page)).toContain('done: the run is ready for review');
    await expect.poll(() => readText(alice.page)).toBe('The swift brown fox leaps over the idle dog.\nA second paragraph.');
    await reviewPanel(alice.page).getByRole('button', { name: 'Accept run' }).click();
    await reviewPanel(alice.page).waitFor({ state: 'detached' });
    await panel.waitFor({ state: 'detached' });
    await expect.poll(async () => (await server!.api(`/api/docs/${id}/markdown`)).body).toBe(
      'The swift brown fox leaps over the idle dog.\n\nA second paragraph.',
    );
    // The rewrite was asked of the model with the server's text of the block, without tools.
    const rewrite = model.requests[2].body;
    expect(rewrite.tools).toBeUndefined();
    expect(rewrite.messages[1].content).toContain('<block-markdown>\nThe quick brown fox jumps over the lazy dog.\n</block-markdown>');
  });
});
