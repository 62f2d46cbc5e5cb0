import { referenceAgentName, startReferenceAgent, type RunningAgent } from '../../agents/reference/reference-agent.ts';
import type { TestServer } from './server.ts';

/**
 * Starts the reference agent against a test server, over HTTP, as `npx tandem agent` would;
 * stop it before the server. `messages` collects its log.
 */
export function startTestReferenceAgent(
  server: TestServer,
  options: { pollSeconds?: number; presence?: boolean } = {},
): RunningAgent & { messages: string[] } {
  const messages: string[] = [];
  const token = server.token('agent', { sub: 'reference-agent', name: referenceAgentName });
  const agent = startReferenceAgent({
    url: server.url,
    token,
    pollSeconds: options.pollSeconds ?? 5,
    presence: options.presence,
    log: (message) => messages.push(message),
  });
  return { ...agent, messages };
}
