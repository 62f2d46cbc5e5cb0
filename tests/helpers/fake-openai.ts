import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { halves, sendJson, startScriptedServer } from './fake-model-server.ts';

/**
 * A scripted OpenAI-compatible Chat Completions server on 127.0.0.1, for tests without network.
 * It speaks the real wire format: `POST /v1/chat/completions`, and with `stream: true` the SSE
 * stream of `chat.completion.chunk`s (`delta.tool_calls` split over several chunks, arguments
 * in pieces) closed by `data: [DONE]`. Each request is answered by the next step of the script
 * and recorded.
 */

/** The tokens a reply reports (with `stream_options.include_usage`); 100 in, 20 out, none cached unless given. */
export interface FakeUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
}

export type FakeReply =
  | { toolCalls: { name: string; arguments: Record<string, unknown> }[]; text?: string; usage?: FakeUsage }
  | { text: string; usage?: FakeUsage }
  | { status: number; error: { message: string; type?: string; code?: string }; headers?: Record<string, string> }
  /** The answer's headers and first chunk, then nothing more: a stream that stalls. */
  | { stall: true };

/**
 * A step: a reply, or a reply made from the request's body (the conversation so far), which
 * may first do something else (a person's edit) while the agent waits for the model.
 */
export type FakeStep = FakeReply | ((body: ChatRequestBody) => FakeReply | Promise<FakeReply>);

export interface ChatRequestBody {
  model: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
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
  let callCount = 0;
  const server = await startScriptedServer<ChatRequestBody, FakeReply>({
    path: '/v1/chat/completions',
    script,
    refuse: (response, status, message) =>
      sendJson(response, status, { error: { message, type: status === 404 ? 'invalid_request_error' : 'server_error' } }),
    reply(response, reply, body) {
      if ('stall' in reply) {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        response.write(`data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] })}\n\n`);
        return;
      }
      if ('status' in reply) {
        return sendJson(response, reply.status, { error: { type: 'invalid_request_error', code: null, param: null, ...reply.error } }, reply.headers);
      }
      const toolCalls = ('toolCalls' in reply ? reply.toolCalls : []).map((call) => ({
        id: `call_${++callCount}`,
        name: call.name,
        arguments: JSON.stringify(call.arguments),
      }));
      const text = reply.text ?? '';
      const usage = body.stream_options?.include_usage ? (reply.usage ?? { promptTokens: 100, completionTokens: 20 }) : undefined;
      if (body.stream) streamReply(response, body.model, text, toolCalls, usage);
      else sendJson(response, 200, completion(body.model, text, toolCalls));
    },
  });
  return { baseURL: `${server.origin}/v1`, requests: server.requests, close: server.close };
}

type Call = { id: string; name: string; arguments: string };

const created = 1_700_000_000;

function streamReply(response: ServerResponse, model: string, text: string, calls: Call[], usage: FakeUsage | undefined): void {
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
  if (usage) {
    // As OpenAI sends it: a last chunk with no choices and the usage of the whole call.
    response.write(
      `data: ${JSON.stringify({
        id: 'chatcmpl-fake',
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [],
        usage: {
          prompt_tokens: usage.promptTokens,
          completion_tokens: usage.completionTokens,
          total_tokens: usage.promptTokens + usage.completionTokens,
          prompt_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
        },
      })}\n\n`,
    );
  }
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
