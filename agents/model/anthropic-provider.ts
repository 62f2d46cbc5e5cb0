import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import { ModelCallError, type Message, type ModelProvider, type ModelRequest, type ModelTurn } from './tool-loop.ts';
import { defaultCallTimeoutMs } from './openai-provider.ts';

export interface AnthropicSettings {
  /** The Messages API server, e.g. `https://api.anthropic.com` (`ANTHROPIC_BASE_URL`). */
  baseURL: string;
  /** `ANTHROPIC_API_KEY`. */
  apiKey: string;
  /** The model's name (`TANDEM_MODEL`), e.g. `claude-sonnet-4-5`. */
  model: string;
  /** How long one model call may take, in milliseconds. */
  callTimeoutMs: number;
}

export const defaultAnthropicBaseUrl = 'https://api.anthropic.com';
/** The Messages API requires a ceiling on each answer; a run's answers are tool calls and a short summary. */
export const anthropicMaxTokens = 8192;

/** The settings the environment gives, with `model` (from `--model anthropic:NAME`) winning over `TANDEM_MODEL`. */
export function anthropicSettingsFromEnv(env: NodeJS.ProcessEnv, model?: string): AnthropicSettings {
  const name = model || env.TANDEM_MODEL;
  if (!name) throw new RangeError('Name the model: TANDEM_MODEL=NAME, or --model anthropic:NAME');
  return { baseURL: env.ANTHROPIC_BASE_URL || defaultAnthropicBaseUrl, apiKey: env.ANTHROPIC_API_KEY ?? '', model: name, callTimeoutMs: defaultCallTimeoutMs };
}

/**
 * A model behind Anthropic's Messages API with tool use, through the official SDK: each call
 * streams and the SDK assembles the `tool_use` blocks from the deltas. The system prompt goes
 * in `system`; each tool answer goes back in a user message as a `tool_result` block naming its
 * `tool_use_id` [MODEL6]. No retries: a refused or failed call fails the run with a message
 * that says what to check [MODEL5].
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
    async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelTurn> {
      try {
        const stream = client.messages.stream(
          {
            model: settings.model,
            max_tokens: anthropicMaxTokens,
            system: request.system,
            messages: toAnthropicMessages(request.messages),
            tools: request.tools.map(toAnthropicTool),
          },
          { signal },
        );
        const message = await stream.finalMessage();
        let content = '';
        const toolCalls: ModelTurn['toolCalls'] = [];
        for (const block of message.content) {
          if (block.type === 'text') content += block.text;
          else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
        }
        return { content, toolCalls };
      } catch (error) {
        throw explain(error, where, settings, signal);
      }
    },
  };
}

function explain(error: unknown, where: string, settings: AnthropicSettings, signal: AbortSignal): unknown {
  if (signal.aborted || error instanceof APIUserAbortError || error instanceof ModelCallError) return signal.reason ?? error;
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelCallError(`The model server at ${where} did not answer within ${duration(settings.callTimeoutMs)}.`);
  }
  if (error instanceof APIConnectionError) {
    return new ModelCallError(`Could not reach the model server at ${where}: check ANTHROPIC_BASE_URL and that the server is running.`);
  }
  if (error instanceof APIError && error.status !== undefined) {
    const status = error.status;
    const hint =
      status === 401 || status === 403
        ? 'check ANTHROPIC_API_KEY'
        : status === 404
          ? `check TANDEM_MODEL ("${settings.model}") and ANTHROPIC_BASE_URL`
          : status === 429 || status === 529
            ? 'the server is busy or the quota is used up; send the run again later'
            : 'see the model server\'s answer';
    return new ModelCallError(`The model server at ${where} answered ${status}: ${hint}.`);
  }
  return new ModelCallError(`The model server at ${where} gave an answer that could not be read: ${error instanceof Error ? error.message : String(error)}`);
}

function duration(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
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
