import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted OpenAI-compatible Chat Completions server on 127.0.0.1, for tests without network.
 * It speaks the real wire format: `POST /v1/chat/completions`, and with `stream: true` the SSE
 * stream of `chat.completion.chunk`s (`delta.tool_calls` split over several chunks, arguments
 * in pieces) closed by `data: [DONE]`. Each request is answered by the next step of the script
 * and recorded.
 */

export type FakeReply =
  | { toolCalls: { name: string; arguments: Record<string, unknown> }[]; text?: string }
  | { text: string }
  | { status: number; error: { message: string; type?: string; code?: string } };

/**
 * A step: a reply, or a reply made from the request's body (the conversation so far), which
 * may first do something else (a person's edit) while the agent waits for the model.
 */
export type FakeStep = FakeReply | ((body: ChatRequestBody) => FakeReply | Promise<FakeReply>);

export interface ChatRequestBody {
  model: string;
  stream?: boolean;
  messages: { role: string; content?: string | null; tool_call_id?: string; tool_calls?: { id: string; function: { name: string; arguments: string } }[] }[];
  tools?: { type: 'function'; function: { name: string; description?: string; parameters: unknown } }[];
}

export interface FakeOpenAi {
  /** The base URL to give the SDK (`…/v1`). */
  baseURL: string;
  requests: { headers: IncomingHttpHeaders; body: ChatRequestBody }[];
  close(): Promise<void>;
}

export async function startFakeOpenAi(script: FakeStep[]): Promise<FakeOpenAi> {
  const requests: FakeOpenAi['requests'] = [];
  let next = 0;
  let callCount = 0;
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', async () => {
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        return sendJson(response, 404, { error: { message: `No route ${request.method} ${request.url}`, type: 'invalid_request_error' } });
      }
      const body = JSON.parse(raw) as ChatRequestBody;
      requests.push({ headers: request.headers, body });
      const step = script[next++];
      if (step === undefined) return sendJson(response, 500, { error: { message: 'The fake model has no more script.', type: 'server_error' } });
      const reply = typeof step === 'function' ? await step(body) : step;
      if ('status' in reply) return sendJson(response, reply.status, { error: { type: 'invalid_request_error', code: null, param: null, ...reply.error } });
      const toolCalls = ('toolCalls' in reply ? reply.toolCalls : []).map((call) => ({
        id: `call_${++callCount}`,
        name: call.name,
        arguments: JSON.stringify(call.arguments),
      }));
      const text = reply.text ?? '';
      if (body.stream) streamReply(response, body.model, text, toolCalls);
      else sendJson(response, 200, completion(body.model, text, toolCalls));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Call = { id: string; name: string; arguments: string };

const created = 1_700_000_000;

function streamReply(response: ServerResponse, model: string, text: string, calls: Call[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    response.write(
      `data: ${JSON.stringify({
        id: 'chatcmpl-fake',
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      })}\n\n`,
    );
  chunk({ role: 'assistant', content: '' });
  for (const piece of halves(text)) chunk({ content: piece });
  calls.forEach((call, index) => {
    chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
    for (const piece of halves(call.arguments)) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  chunk({}, calls.length > 0 ? 'tool_calls' : 'stop');
  response.end('data: [DONE]\n\n');
}

function completion(model: string, text: string, calls: Call[]) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        logprobs: null,
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
        message: {
          role: 'assistant',
          content: text || null,
          refusal: null,
          ...(calls.length > 0
            ? { tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) }
            : {}),
        },
      },
    ],
  };
}

/** `text` in two non-empty pieces (or none, or one), so each value arrives over several chunks. */
function halves(text: string): string[] {
  if (text.length < 2) return text === '' ? [] : [text];
  const middle = Math.floor(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
