import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { halves, sendJson, startScriptedServer } from './fake-model-server.ts';

/**
 * A scripted Anthropic Messages API server on 127.0.0.1, for tests without network. It speaks
 * the real streaming wire format on `POST /v1/messages`: SSE events `message_start`,
 * `content_block_start` / `content_block_delta` (`text_delta`, or `input_json_delta` with the
 * tool input split over several events) / `content_block_stop`, `message_delta` with the
 * `stop_reason`, and `message_stop`. Errors come as `{type: "error", error: {type, message}}`.
 * Each request is answered by the next step of the script and recorded.
 */

/** The tokens a reply reports; 10 in and 21 out, nothing cached, unless given. */
export interface FakeAnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export type FakeAnthropicReply =
  | { toolCalls: { name: string; input: Record<string, unknown> }[]; text?: string; usage?: FakeAnthropicUsage }
  | { text: string; usage?: FakeAnthropicUsage }
  | { status: number; error: { type: string; message: string } };

export type FakeAnthropicStep = FakeAnthropicReply | ((body: MessagesRequestBody) => FakeAnthropicReply | Promise<FakeAnthropicReply>);

export type ContentBlockParam =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };

export interface MessagesRequestBody {
  model: string;
  max_tokens: number;
  stream?: boolean;
  system?: string;
  messages: { role: 'user' | 'assistant'; content: string | ContentBlockParam[] }[];
  tools?: { name: string; description?: string; input_schema: unknown }[];
}

export interface FakeAnthropic {
  /** The base URL to give the SDK (without `/v1`). */
  baseURL: string;
  requests: { headers: IncomingHttpHeaders; body: MessagesRequestBody }[];
  close(): Promise<void>;
}

export async function startFakeAnthropic(script: FakeAnthropicStep[]): Promise<FakeAnthropic> {
  let callCount = 0;
  const server = await startScriptedServer<MessagesRequestBody, FakeAnthropicReply>({
    path: '/v1/messages',
    script,
    refuse: (response, status, message) => sendError(response, status, status === 404 ? 'not_found_error' : 'api_error', message),
    reply(response, reply, body) {
      if ('status' in reply) return sendError(response, reply.status, reply.error.type, reply.error.message);
      const calls = ('toolCalls' in reply ? reply.toolCalls : []).map((call) => ({ id: `toolu_${++callCount}`, name: call.name, json: JSON.stringify(call.input) }));
      streamReply(response, body.model, reply.text ?? '', calls, reply.usage);
    },
  });
  return { baseURL: server.origin, requests: server.requests, close: server.close };
}

function streamReply(
  response: ServerResponse,
  model: string,
  text: string,
  calls: { id: string; name: string; json: string }[],
  usage: FakeAnthropicUsage = { input_tokens: 10, output_tokens: 21 },
): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const send = (event: string, data: Record<string, unknown>) => response.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send('message_start', {
    message: {
      id: 'msg_fake', type: 'message', role: 'assistant', model, content: [],
      stop_reason: null, stop_sequence: null,
      usage: {
        input_tokens: usage.input_tokens,
        output_tokens: 1,
        cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
        cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
      },
    },
  });
  let index = 0;
  if (text !== '') {
    send('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const piece of halves(text)) send('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
    send('content_block_stop', { index });
    index++;
  }
  for (const call of calls) {
    send('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } });
    for (const piece of halves(call.json)) send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
    send('content_block_stop', { index });
    index++;
  }
  send('message_delta', { delta: { stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  send('message_stop', {});
  response.end();
}

function sendError(response: ServerResponse, status: number, type: string, message: string): void {
  sendJson(response, status, { type: 'error', error: { type, message } });
}
