import type { ClaimsInput } from './auth/tokens.ts';
import type { ServerOptions } from './config.ts';
import { referenceAgentName, startReferenceAgent, type RunningAgent } from '../agents/reference/reference-agent.ts';
import { modelAgentName, startModelAgent } from '../agents/model/model-agent.ts';
import { openAiProvider } from '../agents/model/openai-provider.ts';
import { anthropicProvider } from '../agents/model/anthropic-provider.ts';

/**
 * The principal of each built-in agent. Its token is made at each start, never leaves the
 * process and so has no expiry; a restart makes a new one.
 */
export const builtInAgentClaims: ClaimsInput = { sub: 'reference-agent', name: referenceAgentName, role: 'agent' };
export const builtInModelAgentClaims: ClaimsInput = { sub: 'model-agent', name: modelAgentName, role: 'agent' };

/**
 * Starts the built-in agent of `options.agent` in this process: the reference agent
 * (`TANDEM_AGENT=reference`, the default) or the model agent (`TANDEM_AGENT=openai` with
 * `options.openai`, `TANDEM_AGENT=anthropic` with `options.anthropic`). Either is an HTTP client of the server's own URL, with an agent token of
 * its own, and no shortcut past the agent API. Its log goes to stderr, so that `npm start`
 * prints one line on stdout.
 */
export async function startBuiltInAgent(input: {
  url: string;
  /** Signs the agent's token. */
  sign: (claims: ClaimsInput) => Promise<string>;
  options: Pick<ServerOptions, 'agent' | 'openai' | 'anthropic' | 'quiet'> & Partial<Pick<ServerOptions, 'modelLimits'>>;
}): Promise<RunningAgent> {
  const { url, sign, options } = input;
  const label = options.agent === 'openai' || options.agent === 'anthropic' ? '[model agent]' : '[reference agent]';
  const log = options.quiet ? undefined : (message: string) => console.error(`${label} ${message}`);
  let agent: RunningAgent;
  if (options.agent === 'openai') {
    if (!options.openai) throw new RangeError('TANDEM_AGENT=openai needs TANDEM_MODEL');
    const provider = openAiProvider(options.openai);
    agent = startModelAgent({ url, token: await sign(builtInModelAgentClaims), provider, log, limits: options.modelLimits });
  } else if (options.agent === 'anthropic') {
    if (!options.anthropic) throw new RangeError('TANDEM_AGENT=anthropic needs TANDEM_MODEL');
    const provider = anthropicProvider(options.anthropic);
    agent = startModelAgent({ url, token: await sign(builtInModelAgentClaims), provider, log, limits: options.modelLimits });
  } else {
    agent = startReferenceAgent({ url, token: await sign(builtInAgentClaims), log });
  }
  agent.done.catch((error) => console.error(label, error instanceof Error ? error.message : error));
  return agent;
}

/** The URL a client on this machine reaches a server listening on `host` and `port` at. */
export function localUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
