import { AgentApiClient, type ClaimedRun, type Refusal } from '../agent-api-client.ts';
import { describeError as describe, runPeerLoop, type RunningAgent } from '../peer-loop.ts';
import { Rejection } from '../../shared/protocol/rejection.ts';
import { planInstruction } from './plan.ts';
import { planPageInstruction } from './page-plan.ts';
import { showPresence, type AgentPresence } from './presence.ts';
import type { BlockView } from '../../shared/model/doc-content.ts';
import { listenForAsides } from '../aside-listener.ts';
import { answerReferenceAside, type RunProgress } from './reference-asides.ts';
import { ActivityReporter } from '../activity-reporter.ts';

export interface ReferenceAgentOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** An agent token. */
  token: string;
  /** Seconds one long poll for queued runs may be held by the server (at most 30). */
  pollSeconds?: number;
  log?: (message: string) => void;
  /** Show the agent in each document's awareness while it works on a run of it (default true). */
  presence?: boolean;
  /** Awaited before each instruction is worked on: paces the agent (a demo, a test that asks it something mid-run). */
  beforeItem?: (index: number, run: ClaimedRun) => Promise<void>;
}

export type { RunningAgent } from '../peer-loop.ts';

export const referenceAgentName = 'Reference agent';

const staleRetries = 3;

/**
 * The built-in reference agent: deterministic, no model. It long-polls for queued runs,
 * claims one, keeps its lease alive, answers each instruction with one batch of ops (or a
 * refusal), and completes the run. It changes documents only through the agent HTTP API; while
 * it works on a run it is also a read-only Yjs peer of the document, for its presence.
 */
export function startReferenceAgent(options: ReferenceAgentOptions): RunningAgent {
  const client = new AgentApiClient(options.url, options.token);
  const log = options.log ?? (() => {});
  return runPeerLoop({
    client,
    pollSeconds: options.pollSeconds,
    log,
    async work(claimed) {
      const presence = options.presence === false ? null : joinAsPeer(options, claimed);
      try {
        await work(client, claimed, log, presence, options.beforeItem);
      } finally {
        presence?.leave();
      }
    },
  });
}

function joinAsPeer(options: ReferenceAgentOptions, run: ClaimedRun): AgentPresence {
  const count = run.items.length;
  return showPresence({
    url: options.url,
    token: options.token,
    docId: run.docId,
    name: referenceAgentName,
    status: `working on ${count} instruction${count === 1 ? '' : 's'}`,
  });
}

/**
 * Does one claimed run to the end: completed, or failed with a reason. With `presence`, waits
 * (lease kept alive) until the agent shows in the document before changing anything.
 */
export async function work(
  client: AgentApiClient,
  run: ClaimedRun,
  log: (message: string) => void,
  presence: AgentPresence | null = null,
  beforeItem?: ReferenceAgentOptions['beforeItem'],
): Promise<void> {
  const heartbeat = keepLeaseAlive(client, run, log);
  const progress: RunProgress = { index: 0, changed: 0, refused: 0 };
  const asides = listenForAsides({ client, runId: run.runId, log, answer: (aside) => answerReferenceAside(client, run, progress, aside) });
  const activity = new ActivityReporter(client, run.runId, log);
  try {
    await presence?.ready;
    activity.line('reading the document');
    const page = run.document.elements !== undefined;
    let blocks = run.document.blocks;
    let elements = run.document.elements ?? [];
    const reread = async () => {
      if (page) elements = (await client.page(run.docId)).elements;
      else blocks = (await client.document(run.docId)).blocks;
    };
    const refusals: Refusal[] = [];
    let changed = 0;
    for (const [index, item] of run.items.entries()) {
      progress.index = index;
      await beforeItem?.(index, run);
      for (let attempt = 1; ; attempt++) {
        const plan = page
          ? planPageInstruction(item.instructionId, item.instruction, elements.find((element) => element.id === item.blockId))
          : planInstruction(item.instructionId, item.instruction, findBlock(blocks, item.blockId), item);
        if (plan.kind === 'refusal') {
          refusals.push({ instructionId: item.instructionId, reason: plan.reason });
          progress.refused = refusals.length;
          activity.line(`refused ${index + 1}: ${plan.reason}`);
          break;
        }
        const position = blocks.findIndex((block) => block.id === item.blockId);
        activity.line(`changing ${position < 0 ? 'a block' : `block ${position + 1}`} for instruction ${index + 1}`);
        try {
          await client.sendOps(run.runId, `${run.runId}:${index}:${attempt}`, plan.ops);
          changed++;
          progress.changed = changed;
          await reread();
          break;
        } catch (error) {
          const stale = error instanceof Rejection && (error.code === 'STALE_BLOCK' || error.code === 'STALE_ELEMENT');
          if (!stale || attempt >= staleRetries) throw error;
          await reread();
        }
      }
    }
    progress.index = run.items.length;
    const summary = `Answered ${changed} of ${run.items.length} instruction${run.items.length === 1 ? '' : 's'}` +
      (refusals.length ? `; refused ${refusals.length}.` : '.');
    await activity.flush();
    await client.complete(run.runId, summary, refusals);
    log(`run ${run.runId}: ${summary}`);
  } catch (error) {
    if (error instanceof Rejection && error.code === 'NOT_CLAIMED') {
      // The run is no longer this agent's (cancelled, or its lease ran out): it stops here.
      log(`run ${run.runId} left: ${describe(error)}`);
      return;
    }
    log(`run ${run.runId} failed: ${describe(error)}`);
    await activity.flush();
    await client.fail(run.runId, `The reference agent stopped: ${describe(error)}`).catch(() => {});
  } finally {
    heartbeat.stop();
    await asides.stop();
  }
}

function findBlock(blocks: BlockView[], id: string): BlockView | undefined {
  return blocks.find((block) => block.id === id);
}

function keepLeaseAlive(client: AgentApiClient, run: ClaimedRun, log: (message: string) => void) {
  const remaining = Number(new Date(run.lease.expiresAt)) - Date.now();
  const every = Math.max(200, Math.floor((Number.isFinite(remaining) ? remaining : 30_000) / 3));
  const timer = setInterval(() => {
    client.heartbeat(run.runId).catch((error) => log(`heartbeat for ${run.runId}: ${describe(error)}`));
  }, every);
  return { stop: () => clearInterval(timer) };
}
