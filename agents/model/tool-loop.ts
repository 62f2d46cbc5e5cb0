import { runTool, type ToolAnswer, type ToolContext, type ToolDefinition } from './tools.ts';
import type { TokenUsage } from '../../shared/wire/activity.ts';

/**
 * The conversation between the model agent and a model, in no provider's format. A provider
 * (agents/model/openai-provider.ts) turns it into its own requests and its answers back.
 */

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them: JSON text, unchecked. */
  arguments: string;
}

export type Message =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ModelRequest {
  system: string;
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
}

/** One answer of the model: its text, and the tools it calls (none: it has finished). */
export interface ModelTurn {
  content: string;
  toolCalls: ToolCall[];
  /** The tokens of this call, when the provider reported them. */
  usage?: TokenUsage;
}

/**
 * What the rest of the agent shares with a run's tool loop (ASIDE10): the last request the loop
 * sent, exactly as sent, which a side question extends by one message so that a caching provider
 * reads the whole prefix from cache; and the steers people sent, which the loop gives the model
 * as user messages before its next call.
 */
export class RunConversation {
  /** The request of the run's latest model call; null before the first. Never changed once set. */
  latestRequest: ModelRequest | null = null;
  private readonly steers: string[] = [];

  /** Queues a person's steer for the model's next turn. */
  steer(text: string, from: string): void {
    this.steers.push(`${from} steers this run while you work (a request from a person, like an instruction): ${text}`);
  }

  /** The steers queued since the last call, as user messages' texts; the queue is emptied. */
  takeSteers(): string[] {
    return this.steers.splice(0);
  }
}

export interface ModelProvider {
  /** Where the model is served, for messages a person reads. */
  readonly where: string;
  /** The model's name on that server, for the run's record. */
  readonly model?: string;
  /**
   * One model call; rejects with a `ModelCallError` a person can act on. `onText` is told the
   * answer's text so far each time more of it streams in (asides show it as it comes).
   */
  complete(request: ModelRequest, signal: AbortSignal, onText?: (text: string) => void): Promise<ModelTurn>;
}

/** A model call that did not answer: the message says what to check. */
export class ModelCallError extends Error {}

/** The run ended because the model would not finish within the turns allowed. */
export class TurnLimitReached extends Error {}

export const defaultMaxTurns = 20;

/**
 * Talks with the model until it answers without calling a tool [MODEL5], running each tool
 * call in order and giving back its answer; resolves to that last text. At most `maxTurns`
 * model calls; `signal` stops the loop between calls and cancels the call in flight.
 */
export async function runToolLoop(options: {
  provider: ModelProvider;
  system: string;
  firstMessage: string;
  context: ToolContext;
  signal: AbortSignal;
  maxTurns?: number;
  /** Records each request sent and brings in steers (ASIDE10). */
  conversation?: RunConversation;
  /** Told of each tool call before it runs (the run's activity lines). */
  onToolCall?: (call: ToolCall) => void;
}): Promise<string> {
  const maxTurns = options.maxTurns ?? defaultMaxTurns;
  const messages: Message[] = [{ role: 'user', content: options.firstMessage }];
  for (let turn = 1; turn <= maxTurns; turn++) {
    options.signal.throwIfAborted();
    for (const steer of options.conversation?.takeSteers() ?? []) messages.push({ role: 'user', content: steer });
    // A copy: `messages` grows after the call, the request as sent must not.
    const request: ModelRequest = { system: options.system, messages: [...messages], tools: options.context.tools };
    if (options.conversation) options.conversation.latestRequest = request;
    const answer = await options.provider.complete(request, options.signal);
    if (answer.toolCalls.length === 0) return answer.content;
    messages.push({ role: 'assistant', content: answer.content, toolCalls: answer.toolCalls });
    for (const call of answer.toolCalls) {
      options.signal.throwIfAborted();
      options.onToolCall?.(call);
      const result: ToolAnswer = await runTool(call.name, call.arguments, options.context);
      messages.push({ role: 'tool', toolCallId: call.id, content: JSON.stringify(result) });
    }
  }
  throw new TurnLimitReached(
    `The model did not finish within ${maxTurns} turn${maxTurns === 1 ? '' : 's'}; its changes are taken back. Split the instructions over several runs, or try a stronger model.`,
  );
}
