import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateMessageRequestSchema, type CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import { clientCanSample, samplingRegenerator } from '../../agents/mcp/sampling.ts';

/** An MCP server and the SDK's client, linked in memory; the client samples with `answer` when given. */
async function linked(answer?: (request: CreateMessageRequest) => string) {
  const server = new Server({ name: 'tandem', version: '0' }, { capabilities: { tools: {} } });
  const client = new Client({ name: 'test', version: '0' }, answer ? { capabilities: { sampling: {} } } : {});
  if (answer) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      model: 'test-model',
      role: 'assistant',
      content: { type: 'text', text: answer(request) },
    }));
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return { server, client };
}

describe('rewrite_block over MCP sampling', () => {
  it('[MCP6] asks the client’s model once, without tools, with the block as the server holds it and the instruction', async () => {
    const requests: CreateMessageRequest[] = [];
    const { server, client } = await linked((request) => {
      requests.push(request);
      return 'A shorter paragraph.';
    });
    expect(clientCanSample(server)).toBe(true);
    const regenerate = samplingRegenerator(server);
    const text = await regenerate({ blockType: 'paragraph', markdown: 'A long **paragraph**.', instruction: 'shorten' }, new AbortController().signal);
    expect(text).toBe('A shorter paragraph.');
    expect(requests).toHaveLength(1);
    const { messages, tools } = requests[0].params;
    expect(tools).toBeUndefined();
    expect(messages).toHaveLength(1);
    const content = messages[0].content as { type: string; text: string };
    expect(content.text).toContain('A long **paragraph**.');
    expect(content.text).toContain('Instruction: shorten');
    await client.close();
  });

  it('[MCP6] says a client without the sampling capability cannot regenerate', async () => {
    const { server, client } = await linked();
    expect(clientCanSample(server)).toBe(false);
    await client.close();
  });
});
