import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AgentApiClient } from '../agent-api-client.ts';
import { offeredTools, type ToolDefinition } from '../model/tools.ts';
import { decodeClaims } from '../../shared/protocol/claims.ts';
import { HeldRuns } from './held-runs.ts';
import { showPresence } from '../reference/presence.ts';
import { callMcpTool, mcpTools } from './mcp-tools.ts';
import { clientCanSample, samplingRegenerator } from './sampling.ts';

export interface McpAgentOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** An agent token; its `ops` claim decides which write tools are offered. */
  token: string;
}

/** The tools that need the client's model (MCP sampling, MCP6). */
const samplingTools: ReadonlySet<string> = new Set(['rewrite_block', 'rewrite_variants']);

/** The message a run is failed with when the MCP session ends while it is claimed [MCP5]. */
export const sessionEndedMessage = 'The MCP client disconnected before it completed the run.';

/**
 * `tandem mcp`: an MCP server on stdin and stdout through which an MCP client (an IDE, a
 * desktop assistant) works on Tandem's runs as an agent [MCP1]. It speaks to Tandem only
 * through the agent HTTP API, like every agent. When stdin ends or the process is asked to
 * stop, every run still claimed is given back, then the process exits. Nothing but MCP
 * messages is written to stdout; diagnostics go to stderr.
 */
export async function runMcpAgent(options: McpAgentOptions): Promise<void> {
  const client = new AgentApiClient(options.url, options.token);
  const name = decodeClaims(options.token)?.name ?? 'MCP agent';
  const held = new HeldRuns(client, (claimed) =>
    showPresence({ url: options.url, token: options.token, docId: claimed.docId, name, status: `working on ${claimed.items.length} instruction${claimed.items.length === 1 ? '' : 's'}` }),
  );
  const server = new Server({ name: 'tandem', version: '0.1.0' }, { capabilities: { tools: {} } });
  const opsTools = offeredTools(decodeClaims(options.token)?.ops);
  // rewrite_block and rewrite_variants need the client's model (MCP sampling); without it, they are not offered [MCP6].
  const modelTools = (): ToolDefinition[] => opsTools.filter((tool) => !samplingTools.has(tool.name) || clientCanSample(server));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: mcpTools(modelTools()) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const regenerate = clientCanSample(server) ? samplingRegenerator(server) : undefined;
    const answer = await callMcpTool(request.params.name, request.params.arguments ?? {}, { client, held, modelTools: modelTools(), regenerate });
    return { content: [{ type: 'text', text: JSON.stringify(answer) }], isError: 'error' in answer };
  });

  let ending: Promise<void> | undefined;
  const end = () => {
    ending ??= held.giveAllBack(sessionEndedMessage).then(() => process.exit(0));
    return ending;
  };
  process.stdin.on('end', end);
  process.stdin.on('close', end);
  process.on('SIGINT', end);
  process.on('SIGTERM', end);
  await server.connect(new StdioServerTransport());
}
