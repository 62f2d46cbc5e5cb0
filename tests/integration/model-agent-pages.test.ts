import { afterEach, describe, expect, it } from 'vitest';
import { startModelAgent, modelAgentName } from '../../agents/model/model-agent.ts';
import { openAiProvider } from '../../agents/model/openai-provider.ts';
import type { RunningAgent } from '../../agents/reference/reference-agent.ts';
import { startFakeOpenAi, type ChatRequestBody, type FakeOpenAi, type FakeStep } from '../helpers/fake-openai.ts';
import { byTag, pageOf, sentPageRun } from '../helpers/pages.ts';
import { waitForState } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * The model agent on a page (shared/PROTOCOL.md PAGE12): the real server, the official OpenAI
 * SDK, and a scripted OpenAI-compatible server.
 */

const server = useTestServer();

let model: FakeOpenAi | null = null;
let agent: RunningAgent | null = null;

afterEach(async () => {
  await agent?.stop();
  await model?.close();
  agent = null;
  model = null;
});

async function startAgent(script: FakeStep[]): Promise<FakeOpenAi> {
  model = await startFakeOpenAi(script);
  const token = server.token('agent', { sub: 'model-agent', name: modelAgentName });
  const provider = openAiProvider({ baseURL: model.baseURL, apiKey: 'sk-test', model: 'fake-model', callTimeoutMs: 10_000 });
  agent = startModelAgent({ url: server.url, token, provider, pollSeconds: 2 });
  return model;
}

function toolAnswers(body: ChatRequestBody): unknown[] {
  return body.messages.filter((message) => message.role === 'tool').map((message) => JSON.parse(message.content ?? 'null'));
}

describe('the model agent on a page', () => {
  it('[PAGE12] reads the page, stages set_text, set_attribute and replace_element, refuses one, and leaves the source to Accept', async () => {
    const run = await sentPageRun(server, '<h1>Long headline here</h1><p><a href="http://old.test/">link</a></p><h2>Sub</h2><h3>Keep</h3>', [
      ['h1', 'make this headline shorter'],
      ['a', 'fix the link'],
      ['h2', 'make it a paragraph'],
      ['h3', 'leave it'],
    ]);
    const [h1, a, h2] = ['h1', 'a', 'h2'].map((tag) => byTag(run.elements, tag).id);
    const [first, second, third, fourth] = run.instructionIds;
    const fake = await startAgent([
      { toolCalls: [{ name: 'set_text', arguments: { instructionId: first, elementId: h1, text: 'Short' } }] },
      { toolCalls: [{ name: 'read_page', arguments: {} }] },
      {
        toolCalls: [
          { name: 'set_text', arguments: { instructionId: first, elementId: h1, text: 'Short' } },
          { name: 'set_attribute', arguments: { instructionId: second, elementId: a, name: 'href', value: 'https://new.test/' } },
          { name: 'replace_element', arguments: { instructionId: third, elementId: h2, html: '<p onclick="x()">Sub</p>' } },
          { name: 'refuse', arguments: { instructionId: fourth, reason: 'Nothing to do.' } },
        ],
      },
      { text: 'Shortened the headline, fixed the link, turned the subtitle into a paragraph.' },
    ]);
    const record = await waitForState(server, run.runId, 'review', 15_000);
    expect(record.items.map((item) => item.outcome)).toEqual(['changed', 'changed', 'changed', 'refused']);
    expect(fake.requests[0].body.tools?.map((tool) => tool.function.name)).toEqual(['read_page', 'set_text', 'set_attribute', 'replace_element', 'refuse']);
    expect(toolAnswers(fake.requests[1].body)).toEqual([{ error: expect.objectContaining({ code: 'READ_FIRST' }) }]);
    const read = toolAnswers(fake.requests[2].body)[1] as { html: string; elements: { id: string }[] };
    expect(read.elements.map((element) => element.id)).toEqual(run.elements.map((element) => element.id));
    expect(JSON.stringify(read)).not.toContain('hash');
    expect((await pageOf(server, run.docId)).html).toBe(run.html);
    const preview = ((await server.api(`/api/runs/${run.runId}/preview`)).body.html as string).replace(/ data-tandem-id="[^"]+"/g, '');
    expect(preview).toBe('<h1>Short</h1><p><a href="https://new.test/">link</a></p><p>Sub</p><h3>Keep</h3>');
  });

  it('[MODEL8] tells each page tool in the activity: elements by number and tag, instructions by number', async () => {
    const run = await sentPageRun(server, '<h1>Headline</h1><p><a href="http://old.test/">link</a></p><h2>Sub</h2><h3>Keep</h3>', [
      ['h1', 'shorter'],
      ['a', 'fix the link'],
      ['h2', 'make it a paragraph'],
      ['h3', 'leave it'],
    ]);
    const [h1, a, h2] = ['h1', 'a', 'h2'].map((tag) => byTag(run.elements, tag).id);
    const [first, second, third, fourth] = run.instructionIds;
    await startAgent([
      { toolCalls: [{ name: 'read_page', arguments: {} }] },
      {
        toolCalls: [
          { name: 'set_text', arguments: { instructionId: first, elementId: h1, text: 'Short' } },
          { name: 'set_attribute', arguments: { instructionId: second, elementId: a, name: 'href', value: 'https://new.test/' } },
          { name: 'replace_element', arguments: { instructionId: third, elementId: h2, html: '<p>Sub</p>' } },
          { name: 'refuse', arguments: { instructionId: fourth, reason: 'Nothing to do.' } },
        ],
      },
      { text: 'Done.' },
    ]);
    const record = await waitForState(server, run.runId, 'review', 15_000);
    const number = (id: string) => run.elements.findIndex((element) => element.id === id) + 1;
    expect(record.activity.map((line) => line.text)).toEqual([
      'working on 4 instructions',
      'reading the page',
      `changing the text of element ${number(h1)} <h1> for instruction 1`,
      `setting "href" of element ${number(a)} <a> for instruction 2`,
      `replacing element ${number(h2)} <h2> for instruction 3`,
      'refused 4: Nothing to do.',
      'done: the run is ready for review',
    ]);
  });
});
