import type { ClaimsInput } from './auth/tokens.ts';
import { referenceAgentName, startReferenceAgent, type RunningAgent } from '../agents/reference/reference-agent.ts';

/**
 * The principal of the built-in agent. Its token is made at each start, never leaves the
 * process and so has no expiry; a restart makes a new one.
 */
export const builtInAgentClaims: ClaimsInput = { sub: 'reference-agent', name: referenceAgentName, role: 'agent' };

/**
 * Starts the built-in reference agent in this process (`TANDEM_AGENT=reference`, the default):
 * an HTTP client of the server's own URL, with an agent token of its own, and no shortcut past
 * the agent API. Its log goes to stderr, so that `npm start` prints one line on stdout.
 */
export function startBuiltInAgent(options: {
  url: string;
  /** A token of `builtInAgentClaims`. */
  token: string;
  quiet: boolean;
}): RunningAgent {
  const token = options.token;
  const log = options.quiet ? undefined : (message: string) => console.error(`[reference agent] ${message}`);
  const agent = startReferenceAgent({ url: options.url, token, log });
  agent.done.catch((error) => console.error('[reference agent]', error instanceof Error ? error.message : error));
  return agent;
}

/** The URL a client on this machine reaches a server listening on `host` and `port` at. */
export function localUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
