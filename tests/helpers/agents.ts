import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { referenceAgentName, startReferenceAgent, type RunningAgent } from '../../agents/reference/reference-agent.ts';
import type { TestServer } from './server.ts';

const tandemBin = fileURLToPath(new URL('../../bin/tandem.mjs', import.meta.url));

/**
 * Starts the reference agent against a test server, over HTTP, as `npx tandem agent` would;
 * stop it before the server. `messages` collects its log.
 */
export function startTestReferenceAgent(
  server: TestServer,
  options: { pollSeconds?: number; presence?: boolean; beforeItem?: Parameters<typeof startReferenceAgent>[0]['beforeItem'] } = {},
): RunningAgent & { messages: string[] } {
  const messages: string[] = [];
  const token = server.token('agent', { sub: 'reference-agent', name: referenceAgentName });
  const agent = startReferenceAgent({
    url: server.url,
    token,
    pollSeconds: options.pollSeconds ?? 5,
    presence: options.presence,
    beforeItem: options.beforeItem,
    log: (message) => messages.push(message),
  });
  return { ...agent, messages };
}

export interface AgentProcess {
  /** What the process wrote to stdout and stderr so far. */
  output(): string;
  /** Stops it as Ctrl-C would; resolves with its exit code. */
  interrupt(): Promise<number | null>;
}

/** Runs `npx tandem agent ARGS` as a child process with `env` added to this process's environment. */
export function spawnAgentCommand(args: string[], env: Record<string, string>): AgentProcess {
  const child = spawn(process.execPath, [tandemBin, 'agent', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    output: () => output,
    interrupt() {
      child.kill('SIGINT');
      return exited;
    },
  };
}
