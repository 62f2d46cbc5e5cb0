import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, type CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';

const tandemBin = fileURLToPath(new URL('../../bin/tandem.mjs', import.meta.url));

export interface McpSession {
  client: Client;
  /** Calls a tool and parses its JSON answer; `isError` as the server set it. */
  call(name: string, args?: Record<string, unknown>): Promise<{ answer: any; isError: boolean }>;
  /** What the `tandem mcp` process wrote to stderr so far. */
  stderr(): string;
  /** Closes the client: stdin of the process ends, and it exits. */
  close(): Promise<void>;
}

/**
 * Spawns the real `tandem mcp --url URL --token TOKEN` (bin/tandem.mjs, as `npx tandem mcp`
 * runs it) and connects the MCP SDK's own client to it over stdio. With `sample`, the client
 * declares the sampling capability and answers each sampling request with its text.
 */
export async function connectMcp(
  url: string,
  token: string,
  options: { sample?: (request: CreateMessageRequest) => string } = {},
): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [tandemBin, 'mcp', '--url', url, '--token', token],
    stderr: 'pipe',
    env: { ...process.env } as Record<string, string>,
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk));
  const client = new Client({ name: 'tandem-tests', version: '1.0.0' }, options.sample ? { capabilities: { sampling: {} } } : {});
  const { sample } = options;
  if (sample) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      model: 'client-model',
      role: 'assistant',
      content: { type: 'text', text: sample(request) },
    }));
  }
  await client.connect(transport);
  return {
    client,
    async call(name, args = {}) {
      const result = await client.callTool({ name, arguments: args });
      const content = result.content as { type: string; text: string }[];
      return { answer: JSON.parse(content[0].text), isError: result.isError === true };
    },
    stderr: () => stderr,
    close: () => client.close(),
  };
}
