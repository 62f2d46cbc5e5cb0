import { startModelAgent, modelAgentName } from '../../agents/model/model-agent.ts';
import { openAiProvider } from '../../agents/model/openai-provider.ts';
import type { RunLimits } from '../../agents/model/model-settings.ts';
import type { RunningAgent } from '../../agents/peer-loop.ts';
import type { OpKind } from '../../shared/applier/op-kinds.ts';
import { startFakeOpenAi, type ChatRequestBody, type FakeOpenAi, type FakeStep } from './fake-openai.ts';
import type { TestServer } from './server.ts';

export interface TestModelAgent {
  model: FakeOpenAi;
  agent: RunningAgent;
  /** The agent's log. */
  messages: string[];
  /** Stops the agent, then the fake model. */
  stop(): Promise<void>;
}

/**
 * The model agent against a test server, over HTTP, with the official OpenAI SDK talking to a
 * fake model that answers `script`; stop it before the server.
 */
export async function startTestModelAgent(
  server: Pick<TestServer, 'url' | 'token'>,
  script: FakeStep[],
  options: { ops?: OpKind[]; callTimeoutMs?: number; limits?: Partial<RunLimits> } = {},
): Promise<TestModelAgent> {
  const model = await startFakeOpenAi(script);
  const messages: string[] = [];
  const token = server.token('agent', { sub: 'model-agent', name: modelAgentName, ops: options.ops });
  const provider = openAiProvider({ baseURL: model.baseURL, apiKey: 'sk-test', model: 'fake-model', callTimeoutMs: options.callTimeoutMs ?? 10_000 });
  const agent = startModelAgent({ url: server.url, token, provider, pollSeconds: 2, limits: options.limits, log: (message) => messages.push(message) });
  return {
    model,
    agent,
    messages,
    async stop() {
      await agent.stop();
      await model.close();
    },
  };
}

/** The answers of the tool calls in a recorded request, parsed. */
export function toolAnswers(body: ChatRequestBody): unknown[] {
  return body.messages.filter((message) => message.role === 'tool').map((message) => JSON.parse(message.content ?? 'null'));
}
