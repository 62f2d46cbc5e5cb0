import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { ModelCallError, type Message, type ModelProvider, type ModelRequest, type ModelTurn } from './tool-loop.ts';

export interface OpenAiSettings {
  /** The Chat Completions server, e.g. `http://127.0.0.1:8080/v1` (`OPENAI_BASE_URL`). */
  baseURL: string;
  /** `OPENAI_API_KEY`; empty for a local server that asks for none. */
  apiKey: string;
  /** The model's name on that server (`TANDEM_MODEL`). */
  model: string;
  /** How long one model call may take, in milliseconds. */
  callTimeoutMs: number;
}

export const defaultOpenAiBaseUrl = 'https://api.openai.com/v1';
export const defaultCallTimeoutMs = 120_000;

/** The settings the environment gives, with `model` (from `--model openai:NAME`) winning over `TANDEM_MODEL`. */
export function openAiSettingsFromEnv(env: NodeJS.ProcessEnv, model?: string): OpenAiSettings {
  const name = model || env.TANDEM_MODEL;
  if (!name) throw new RangeError('Name the model: TANDEM_MODEL=NAME, or --model openai:NAME');
  return { baseURL: env.OPENAI_BASE_URL || defaultOpenAiBaseUrl, apiKey: env.OPENAI_API_KEY ?? '', model: name, callTimeoutMs: defaultCallTimeoutMs };
}

/**
 * A model behind any OpenAI-compatible Chat Completions endpoint with tool calling, through the
 * official SDK: each call streams (`stream: true`) and the SDK assembles the tool calls from the
 * deltas. No retries in this slice: a refused or failed call fails the run with a message that
 * says what to check [MODEL5].
 */
export function openAiProvider(settings: OpenAiSettings): ModelProvider {
  const client = new OpenAI({
    baseURL: settings.baseURL,
    // The SDK refuses to start without a key; a local server that asks for none gets no header.
    apiKey: settings.apiKey || 'unused',
    defaultHeaders: settings.apiKey ? undefined : { authorization: null },
    maxRetries: 0,
    timeout: settings.callTimeoutMs,
  });
  const where = settings.baseURL;
  return {
    where,
    async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelTurn> {
      try {
        const stream = client.chat.completions.stream(
          { model: settings.model, messages: toOpenAiMessages(request), tools: request.tools.map(toOpenAiTool) },
          { signal },
        );
        const completion = await stream.finalChatCompletion();
        const message = completion.choices[0]?.message;
        if (!message) throw new ModelCallError(`The model server at ${where} answered without a message.`);
        const toolCalls = (message.tool_calls ?? []).flatMap((call) =>
          call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
        );
        return { content: message.content ?? '', toolCalls };
      } catch (error) {
        throw explain(error, where, settings, signal);
      }
    },
  };
}

function explain(error: unknown, where: string, settings: OpenAiSettings, signal: AbortSignal): unknown {
  if (signal.aborted || error instanceof APIUserAbortError || error instanceof ModelCallError) return signal.reason ?? error;
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelCallError(`The model server at ${where} did not answer within ${duration(settings.callTimeoutMs)}.`);
  }
  if (error instanceof APIConnectionError) {
    return new ModelCallError(`Could not reach the model server at ${where}: check OPENAI_BASE_URL and that the server is running.`);
  }
  if (error instanceof APIError && error.status !== undefined) {
    const status = error.status;
    const hint =
      status === 401 || status === 403
        ? 'check OPENAI_API_KEY'
        : status === 404
          ? `check TANDEM_MODEL ("${settings.model}") and OPENAI_BASE_URL`
          : status === 429
            ? 'the server is busy or the quota is used up; send the run again later'
            : 'see the model server\'s log';
    return new ModelCallError(`The model server at ${where} answered ${status}: ${hint}.`);
  }
  return new ModelCallError(`The model server at ${where} gave an answer that could not be read: ${error instanceof Error ? error.message : String(error)}`);
}

function duration(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

function toOpenAiTool(tool: ModelRequest['tools'][number]): ChatCompletionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: { ...tool.parameters } } };
}

function toOpenAiMessages(request: ModelRequest): ChatCompletionMessageParam[] {
  return [{ role: 'system', content: request.system }, ...request.messages.map(toOpenAiMessage)];
}

function toOpenAiMessage(message: Message): ChatCompletionMessageParam {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content || null,
        tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
      };
  }
}
