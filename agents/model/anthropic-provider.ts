import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import type { Message, ModelProvider, ModelRequest, ModelTurn } from './tool-loop.ts';
import { explainCallFailure, withDeadline, type SdkErrors } from './model-call-errors.ts';
import { modelServer, modelSettingsFromEnv, type ModelSettings } from './model-settings.ts';

const sdkErrors: SdkErrors = { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError };

export type AnthropicSettings = ModelSettings;

/** The Messages API requires a ceiling on each answer; a run's answers are tool calls and a short summary. */
export const anthropicMaxTokens = 8192;

export const anthropicSettingsFromEnv = (env: NodeJS.ProcessEnv, model?: string): AnthropicSettings => modelSettingsFromEnv('anthropic', env, model);

/**
 * A model behind Anthropic's Messages API with tool use, through the official SDK: each call
 * streams and the SDK assembles the `tool_use` blocks from the deltas. The system prompt goes
 * in `system`; each tool answer goes back in a user message as a `tool_result` block naming its
 * `tool_use_id` [MODEL6]. The SDK's retries are off: the model agent retries (model-retry.ts);
 * a refused or failed call fails the run with a message that says what to check [MODEL5].
 */
export function anthropicProvider(settings: AnthropicSettings): ModelProvider {
  const client = new Anthropic({
    baseURL: settings.baseURL,
    // A key passed in code is the client's only credential: the SDK then reads none from the environment.
    apiKey: settings.apiKey,
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
        const stream = client.messages.stream(
          {
            model: settings.model,
            max_tokens: anthropicMaxTokens,
            system: request.system,
            messages: toAnthropicMessages(request.messages),
            ...(request.tools.length > 0 ? { tools: request.tools.map(toAnthropicTool) } : {}),
          },
          { signal },
        );
        if (onText) stream.on('text', (_delta, snapshot) => onText(snapshot));
        const message = await stream.finalMessage();
        let content = '';
        const toolCalls: ModelTurn['toolCalls'] = [];
        for (const block of message.content) {
          if (block.type === 'text') content += block.text;
          else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
        }
        const { usage } = message;
        const cacheRead = usage.cache_read_input_tokens ?? 0;
        return {
          content,
          toolCalls,
          // Anthropic counts cache reads and writes apart from `input_tokens`; the run counts every input token.
          usage: {
            inputTokens: usage.input_tokens + cacheRead + (usage.cache_creation_input_tokens ?? 0),
            outputTokens: usage.output_tokens,
            cachedInputTokens: cacheRead,
          },
        };
      } catch (error) {
        throw explainCallFailure(error, sdkErrors, modelServer('anthropic', settings), runSignal, deadline);
      }
    },
  };
}

function toAnthropicTool(tool: ModelRequest['tools'][number]): Tool {
  return { name: tool.name, description: tool.description, input_schema: { ...tool.parameters } as Tool['input_schema'] };
}

/**
 * The neutral conversation as Messages API turns: consecutive tool answers become one user
 * message of `tool_result` blocks, as the API wants every answer to a turn's calls together.
 */
function toAnthropicMessages(messages: readonly Message[]): MessageParam[] {
  const out: MessageParam[] = [];
  for (const message of messages) {
    if (message.role === 'user') out.push({ role: 'user', content: message.content });
    else if (message.role === 'assistant') {
      out.push({
        role: 'assistant',
        content: [
          ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
          ...message.toolCalls.map((call) => ({ type: 'tool_use' as const, id: call.id, name: call.name, input: parseInput(call.arguments) })),
        ],
      });
    } else {
      const block = { type: 'tool_result' as const, tool_use_id: message.toolCallId, content: message.content };
      const last = out.at(-1);
      if (last?.role === 'user' && Array.isArray(last.content)) last.content.push(block);
      else out.push({ role: 'user', content: [block] });
    }
  }
  return out;
}

/** The arguments of a call as the model sent them; the SDK gave them parsed, so they parse back. */
function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
