import type { AgentApiClient, AgentAside } from '../agent-api-client.ts';
import { describeError } from '../peer-loop.ts';
import { RunState } from './run-state.ts';
import { runTool, type ToolAnswer, type ToolContext } from './tools.ts';
import type { Message, ModelProvider, ModelRequest, ModelTurn, RunConversation } from './tool-loop.ts';
import { maxAsideAnswerLength } from '../../shared/wire/asides.ts';

/**
 * A person's side question to the model agent (ASIDE10): ONE request that is the run's latest
 * model request as it was sent (model, system, tools, messages, parameters) with one user
 * message appended, so that a caching provider reads the whole prefix from its cache. Nothing
 * of it enters the run's conversation or the document: the read tools may run (on a scratch run
 * state, so no hash read here serves a later write), a write tool is answered with an error, and
 * after `maxAsideCalls` model calls the aside gives up. The model's first line routes it:
 * `route: side` answers the person, `route: agent` sends the question to the run as a steer; a
 * `handoff:` line suggests an instruction to pin. A failed aside becomes a steer too.
 */

/** What the model agent answers to a steer; a run whose model has made its last call does not read it. */
export const steerTaken = 'Queued for the run: the model reads it before its next call, if the run makes another.';

/** Model calls one aside may make: the question, then at most two turns of read tools. */
export const maxAsideCalls = 3;

const readTools = new Set(['read_document', 'read_block']);

export function asideMessage(question: string, from: string): string {
  return [
    `A side question from ${from}, who watches this run. Do not carry on with the run here: answer the question only, in a few sentences, from what you know of the run.`,
    'Begin with one line "route: side" to answer on the side, or "route: agent" when the question is really a correction of your work that the run should take into account.',
    'You may add one line "handoff: …" with an instruction the person could pin for the agent. Then the answer. Only read_document and read_block work here.',
    '<question>',
    question.replace(/</g, '\\u003c'),
    '</question>',
  ].join('\n');
}

export interface AsideReply {
  route: 'side' | 'agent';
  answer: string;
  handoff: string | null;
}

/** Reads the model's reply: an optional `route:` first line, an optional `handoff:` line, then the answer. */
export function parseAsideReply(text: string): AsideReply {
  const lines = text.trim().split(/\r?\n/);
  let route: AsideReply['route'] = 'side';
  const routeLine = /^\s*route:\s*(side|agent)\b\s*$/i.exec(lines[0] ?? '');
  if (routeLine) {
    route = routeLine[1].toLowerCase() as AsideReply['route'];
    lines.shift();
  }
  let handoff: string | null = null;
  const handoffAt = lines.findIndex((line) => /^\s*handoff:/i.test(line));
  if (handoffAt >= 0) {
    handoff = lines[handoffAt].replace(/^\s*handoff:\s*/i, '').trim() || null;
    lines.splice(handoffAt, 1);
  }
  return { route, answer: lines.join('\n').trim(), handoff };
}

/** The aside's request: `base` with `message` appended; every other field is `base`'s own. */
export function asideRequest(base: ModelRequest, message: string): ModelRequest {
  return { system: base.system, tools: base.tools, messages: [...base.messages, { role: 'user', content: message }] };
}

/**
 * The answer a reply streaming in shows so far (ASIDE5): null until its first line has come and
 * while it routes the question to the run; a `handoff:` line right after the route waits for its
 * end and is left out. The finished reply is read by `parseAsideReply`, whose answer replaces this.
 */
export function answerSoFar(snapshot: string): string | null {
  const text = snapshot.trimStart();
  const lineEnd = text.indexOf('\n');
  if (lineEnd < 0) return null;
  let rest = text;
  const routeLine = /^\s*route:\s*(side|agent)\b\s*$/i.exec(text.slice(0, lineEnd));
  if (routeLine) {
    if (routeLine[1].toLowerCase() === 'agent') return null;
    rest = text.slice(lineEnd + 1).trimStart();
  }
  if (rest.length < 'handoff:'.length && 'handoff:'.startsWith(rest.toLowerCase())) return null;
  if (/^handoff:/i.test(rest)) {
    const handoffEnd = rest.indexOf('\n');
    if (handoffEnd < 0) return null;
    rest = rest.slice(handoffEnd + 1).trimStart();
  }
  return rest;
}

/**
 * Posts an answer's new text as `chunk`s while it streams in, one request at a time (text that
 * comes meanwhile goes in the next); text that does not extend what was sent waits for the end.
 */
function answerStreamer(post: (body: { chunk: string }) => Promise<unknown>) {
  let sent = '';
  let latest = '';
  let busy = false;
  let flowing: Promise<void> = Promise.resolve();
  const pump = async () => {
    while (latest.length > sent.length && latest.startsWith(sent)) {
      const chunk = latest.slice(sent.length);
      sent = latest;
      await post({ chunk });
    }
  };
  return {
    show(answer: string): void {
      latest = answer.slice(0, maxAsideAnswerLength);
      if (busy) return;
      busy = true;
      flowing = pump()
        .catch(() => {})
        .finally(() => (busy = false));
    },
    /** Resolves once every chunk begun has been posted. */
    settled: () => flowing,
  };
}

/** Asks the model `aside` on the side of the run whose latest request `conversation` holds. */
export async function askOnTheSide(input: {
  provider: ModelProvider;
  conversation: RunConversation;
  context: ToolContext;
  aside: AgentAside;
  signal: AbortSignal;
  /** Told the answer so far while it streams in. */
  onAnswer?: (answer: string) => void;
}): Promise<AsideReply & { usage?: ModelTurn['usage'] }> {
  const base = input.conversation.latestRequest;
  if (!base) throw new Error('The run has not asked the model anything yet.');
  const { state } = input.context;
  const scratch: ToolContext = { ...input.context, state: new RunState(state.runId, state.docId, state.instructionIds) };
  let request = asideRequest(base, asideMessage(input.aside.text, input.aside.askedBy.name));
  let usage: ModelTurn['usage'];
  for (let call = 1; call <= maxAsideCalls; call++) {
    const { onAnswer } = input;
    const onText = onAnswer && ((text: string) => {
      const answer = answerSoFar(text);
      if (answer) onAnswer(answer);
    });
    const turn = await input.provider.complete(request, input.signal, onText);
    usage ??= turn.usage;
    if (turn.toolCalls.length === 0) return { ...parseAsideReply(turn.content), usage };
    const messages: Message[] = [...request.messages, { role: 'assistant', content: turn.content, toolCalls: turn.toolCalls }];
    for (const toolCall of turn.toolCalls) {
      const answer: ToolAnswer = readTools.has(toolCall.name)
        ? await runTool(toolCall.name, toolCall.arguments, scratch)
        : { error: { code: 'READ_ONLY_ASIDE', message: 'This is a side question: nothing may change here. Answer in words.' } };
      messages.push({ role: 'tool', toolCallId: toolCall.id, content: JSON.stringify(answer) });
    }
    request = { ...request, messages };
  }
  throw new Error(`The model did not answer within ${maxAsideCalls} calls.`);
}

/**
 * Answers one aside of the run the model agent works on, and posts the answer (ASIDE5): a steer
 * goes to the run's next turn; a question is asked on the side, and goes to the run as a steer
 * when the model routes it there or the side call fails, saying so.
 */
export async function answerModelAside(input: {
  client: AgentApiClient;
  provider: ModelProvider;
  conversation: RunConversation;
  context: ToolContext;
  aside: AgentAside;
  signal: AbortSignal;
  log: (message: string) => void;
}): Promise<void> {
  const { client, conversation, aside } = input;
  const runId = input.context.state.runId;
  const post = (body: Parameters<AgentApiClient['answerAside']>[2]) => client.answerAside(runId, aside.asideId, body);
  if (aside.kind === 'steer') {
    conversation.steer(aside.text, aside.askedBy.name);
    await post({ answer: steerTaken, done: true, route: 'agent' });
    return;
  }
  let reply: Awaited<ReturnType<typeof askOnTheSide>>;
  const streamer = answerStreamer(post);
  try {
    reply = await askOnTheSide({ ...input, onAnswer: streamer.show });
    await streamer.settled();
  } catch (error) {
    await streamer.settled();
    if (input.signal.aborted) return;
    input.log(`aside ${aside.asideId} of ${runId} failed: ${describeError(error)}`);
    conversation.steer(aside.text, aside.askedBy.name);
    await post({ answer: `The side answer failed (${describeError(error)}); the question went to the run as a steer.`, done: true, route: 'agent' });
    return;
  }
  if (reply.route === 'agent') conversation.steer(aside.text, aside.askedBy.name);
  await post({
    answer: reply.answer.slice(0, maxAsideAnswerLength),
    done: true,
    route: reply.route,
    ...(reply.handoff ? { handoff: reply.handoff.slice(0, 2000) } : {}),
    ...(reply.usage ? { usage: reply.usage } : {}),
  });
}
