import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted Anthropic Messages API server on 127.0.0.1, for tests without network. It speaks
 * the real streaming wire format on `POST /v1/messages`: SSE events `message_start`,
 * `content_block_start` / `content_block_delta` (`text_delta`, or `input_json_delta` with the
 * tool input split over several events) / `content_block_stop`, `message_delta` with the
 * `stop_reason`, and `message_stop`. Errors come as `{type: "error", error: {type, message}}`.
 * Each request is answered by the next step of the script and recorded.
 */

export type FakeAnthropicReply =
  | { toolCalls: { name: string; input: Record<string, unknown> }[]; text?: string }
  | { text: string }
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
  const requests: FakeAnthropic['requests'] = [];
  let next = 0;
  let callCount = 0;
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', async () => {
      if (request.method !== 'POST' || request.url !== '/v1/messages') {
        return sendError(response, 404, 'not_found_error', `No route ${request.method} ${request.url}`);
      }
      const body = JSON.parse(raw) as MessagesRequestBody;
      requests.push({ headers: request.headers, body });
      const step = script[next++];
      if (step === undefined) return sendError(response, 500, 'api_error', 'The fake model has no more script.');
      const reply = typeof step === 'function' ? await step(body) : step;
      if ('status' in reply) return sendError(response, reply.status, reply.error.type, reply.error.message);
      const calls = ('toolCalls' in reply ? reply.toolCalls : []).map((call) => ({ id: `toolu_${++callCount}`, name: call.name, json: JSON.stringify(call.input) }));
      streamReply(response, body.model, reply.text ?? '', calls);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function streamReply(response: ServerResponse, model: string, text: string, calls: { id: string; name: string; json: string }[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const send = (event: string, data: Record<string, unknown>) => response.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send('message_start', {
    message: {
      id: 'msg_fake', type: 'message', role: 'assistant', model, content: [],
      stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 },
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
  send('message_delta', { delta: { stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 20 } });
  send('message_stop', {});
  response.end();
}

/** `text` in two non-empty pieces (or none, or one), so each value arrives over several events. */
function halves(text: string): string[] {
  if (text.length < 2) return text === '' ? [] : [text];
  const middle = Math.floor(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}

function sendError(response: ServerResponse, status: number, type: string, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ type: 'error', error: { type, message } }));
}
