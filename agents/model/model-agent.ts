import { AgentApiClient, type ClaimedRun } from '../agent-api-client.ts';
import { describeError as describe, runPeerLoop, type RunningAgent } from '../peer-loop.ts';
import { Rejection } from '../../shared/protocol/rejection.ts';
import { showPresence } from '../reference/presence.ts';
import { decodeClaims } from '../../shared/protocol/claims.ts';
import { RunState, variantsWantedOf } from './run-state.ts';
import { firstMessage, systemPrompt } from './prompt.ts';
import { RunConversation, runToolLoop, type ModelProvider } from './tool-loop.ts';
import { listenForAsides } from '../aside-listener.ts';
import { answerModelAside } from './aside.ts';
import { LeaseLost, offeredTools } from './tools.ts';
import { defaultRunLimits, type RunLimits } from './model-settings.ts';
import { meteredModel } from './metered-model.ts';
import { regenerateWith } from './regenerate.ts';
import { describeToolCall } from './activity-lines.ts';
import { ActivityReporter } from '../activity-reporter.ts';
import { offeredPageTools, pageFirstMessage, pageSystemPrompt } from './page-tools.ts';

export interface ModelAgentOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** An agent token; its `ops` claim decides which write tools the model is offered. */
  token: string;
  provider: ModelProvider;
  /** Seconds one long poll for queued runs may be held by the server (at most 30). */
  pollSeconds?: number;
  /** Model calls per run (default 20); wins over `limits.maxTurns`. */
  maxTurns?: number;
  /** What a run may spend (model-settings.ts); the defaults for what is not given. */
  limits?: Partial<RunLimits>;
  log?: (message: string) => void;
  /** Show the agent in each document's awareness while it works on a run of it (default true). */
  presence?: boolean;
}

export const modelAgentName = 'Model agent';

const maxSummaryLength = 10_000;
const maxFailLength = 2_000;

/** How long a finished run waits for the side questions being answered before it goes to review. */
const asideGraceMs = 20_000;

/**
 * The model-backed agent, a peer of the server like any external agent: it long-polls for
 * queued runs, claims one, lets the model read and change the document through the tools of
 * agents/model/tools.ts while it keeps the lease alive, and completes the run with the model's
 * last text as summary, or fails it with a message a person can act on [MODEL4]. The run's
 * model also writes `rewrite_block`'s text [MODEL7]; every call is retried and metered within
 * the run's limits [MODEL9]; what the agent does, its model and its tokens go to the run's
 * activity [MODEL8].
 */
export function startModelAgent(options: ModelAgentOptions): RunningAgent {
  const client = new AgentApiClient(options.url, options.token, options.provider.model ?? null);
  const log = options.log ?? (() => {});
  const ops = decodeClaims(options.token)?.ops;
  const textTools = offeredTools(ops);
  const pageTools = offeredPageTools(ops);
  return runPeerLoop({
    client,
    pollSeconds: options.pollSeconds,
    log,
    async work(claimed, signal) {
      // As the reference agent does: people see who works on the run, with which model.
      const count = claimed.items.length;
      const presence =
        options.presence === false
          ? null
          : showPresence({
              url: options.url,
              token: options.token,
              docId: claimed.docId,
              name: modelAgentName,
              status: `working on ${count} instruction${count === 1 ? '' : 's'}${options.provider.model ? ` with ${options.provider.model}` : ''}`,
            });
      try {
        await work(client, claimed, { ...options, tools: claimed.document.elements ? pageTools : textTools, log }, signal);
      } finally {
        presence?.leave();
      }
    },
  });
}

async function work(
  client: AgentApiClient,
  run: ClaimedRun,
  options: ModelAgentOptions & { tools: ReturnType<typeof offeredTools>; log: (message: string) => void },
  stopping: AbortSignal,
): Promise<void> {
  const { log } = options;
  // VAR4: the variant tools only for a run with an instruction that asks for several answers.
  const tools = run.items.some((item) => item.variantsWanted > 1) ? options.tools : options.tools.filter((tool) => tool.name !== 'rewrite_variants' && tool.name !== 'propose_variants');
  const limits = { ...defaultRunLimits, ...options.limits };
  const runAbort = new AbortController();
  const onStop = () => runAbort.abort(new Error('The agent was stopped.'));
  stopping.addEventListener('abort', onStop);
  const heartbeat = keepLeaseAlive(client, run, runAbort, log);
  const state = new RunState(run.runId, run.docId, new Set(run.items.map((item) => item.instructionId)), variantsWantedOf(run));
  const activity = new ActivityReporter(client, run.runId, log);
  const provider = meteredModel(options.provider, limits, { onUsage: (usage) => activity.send({ usage }), onRetry: (line) => activity.line(line) });
  if (provider.model) activity.send({ model: provider.model });
  activity.line(`working on ${run.items.length} instruction${run.items.length === 1 ? '' : 's'}`);
  const conversation = new RunConversation();
  const context = { client, state, tools, regenerate: regenerateWith(provider), signal: runAbort.signal };
  const asides = listenForAsides({
    client,
    runId: run.runId,
    log,
    // The provider itself, not the metered one: a side question is not retried (a failed one
    // becomes a steer at once, ASIDE10) and its tokens are its own, reported with the aside.
    answer: (aside, signal) => answerModelAside({ client, provider: options.provider, conversation, context, aside, signal, log }),
  });
  try {
    const summary = await runToolLoop({
      provider,
      system: run.document.elements ? pageSystemPrompt(tools) : systemPrompt(tools),
      firstMessage: run.document.elements ? pageFirstMessage(run) : firstMessage(run),
      context,
      signal: runAbort.signal,
      maxTurns: options.maxTurns ?? limits.maxTurns,
      conversation,
      onToolCall: (call) => activity.line(describeToolCall(call, run)),
    });
    // A question asked as the run ends is answered before it goes to review (its asides end then,
    // ASIDE8); the lease is kept alive meanwhile.
    await asides.finish(asideGraceMs);
    heartbeat.stop();
    const text = summary.trim() || 'The model finished without a summary.';
    activity.line('done: the run is ready for review');
    await activity.flush();
    await client.complete(run.runId, text.slice(0, maxSummaryLength), state.refusals());
    log(`run ${run.runId}: ${text}`);
  } catch (error) {
    heartbeat.stop();
    if (error instanceof LeaseLost || (error instanceof Rejection && error.code === 'NOT_CLAIMED') || runAbort.signal.aborted) {
      // The run is no longer this agent's (or the agent is stopping): it changes nothing more.
      log(`run ${run.runId} left: ${describe(runAbort.signal.reason ?? error)}`);
      return;
    }
    log(`run ${run.runId} failed: ${describe(error)}`);
    await activity.flush();
    const message = `The model agent stopped: ${describe(error)}`.slice(0, maxFailLength);
    await client.fail(run.runId, message).catch(() => {});
  } finally {
    heartbeat.stop();
    await asides.stop();
    stopping.removeEventListener('abort', onStop);
  }
}

/**
 * Heartbeats while the run is worked on (a model call can take longer than a lease); a
 * heartbeat answered `409 NOT_CLAIMED` means the lease is gone, and aborts the run at once.
 */
function keepLeaseAlive(client: AgentApiClient, run: ClaimedRun, runAbort: AbortController, log: (message: string) => void) {
  const remaining = Number(new Date(run.lease.expiresAt)) - Date.now();
  const every = Math.max(200, Math.floor((Number.isFinite(remaining) ? remaining : 30_000) / 3));
  const timer = setInterval(() => {
    client.heartbeat(run.runId).catch((error) => {
      if (error instanceof Rejection && error.code === 'NOT_CLAIMED') runAbort.abort(new LeaseLost(`The lease of run ${run.runId} is gone: ${error.message}`));
      else log(`heartbeat for ${run.runId}: ${describe(error)}`);
    });
  }, every);
  return { stop: () => clearInterval(timer) };
}

