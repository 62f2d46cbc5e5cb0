import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { ModelCallError, type Message, type ModelProvider, type ModelRequest, type ModelTurn } from './tool-loop.ts';
import { explainCallFailure, withDeadline, type SdkErrors } from './model-call-errors.ts';
import { modelServer, modelSettingsFromEnv, type ModelSettings } from './model-settings.ts';

const sdkErrors: SdkErrors = { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError };

export type OpenAiSettings = ModelSettings;

export const openAiSettingsFromEnv = (env: NodeJS.ProcessEnv, model?: string): OpenAiSettings => modelSettingsFromEnv('openai', env, model);

/**
 * A model behind any OpenAI-compatible Chat Completions endpoint with tool calling, through the
 * official SDK: each call streams (`stream: true`) and the SDK assembles the tool calls from the
 * deltas, and its last chunk the token usage. The SDK's retries are off: the model agent retries
 * (model-retry.ts); a refused or failed call fails the run with a message that says what to
 * check [MODEL5].
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
    model: settings.model,
    async complete(request: ModelRequest, runSignal: AbortSignal, onText?: (text: string) => void): Promise<ModelTurn> {
      const { signal, deadline } = withDeadline(runSignal, settings.callTimeoutMs);
      try {
        const stream = client.chat.completions.stream(
          {
            model: settings.model,
            messages: toOpenAiMessages(request),
            // A request without tools (rewrite_block's) names none: an empty list is refused by some servers.
            ...(request.tools.length > 0 ? { tools: request.tools.map(toOpenAiTool) } : {}),
            // The last chunk of the stream then carries the call's token usage [MODEL8].
            stream_options: { include_usage: true },
          },
          { signal },
        );
        if (onText) stream.on('content', (_delta, snapshot) => onText(snapshot));
        const completion = await stream.finalChatCompletion();
        const message = completion.choices[0]?.message;
        if (!message) throw new ModelCallError(`The model server at ${where} answered without a message.`);
        const toolCalls = (message.tool_calls ?? []).flatMap((call) =>
          call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
        );
        const usage = completion.usage;
        return {
          content: message.content ?? '',
          toolCalls,
          usage: usage && {
            inputTokens: usage.prompt_tokens,
            outputTokens: usage.completion_tokens,
            cachedInputTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
          },
        };
      } catch (error) {
        throw explainCallFailure(error, sdkErrors, modelServer('openai', settings), runSignal, deadline);
      }
    },
  };
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
