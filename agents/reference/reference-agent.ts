import { setTimeout as delay } from 'node:timers/promises';
import { AgentApiClient, type ClaimedRun, type Refusal } from '../agent-api-client.ts';
import { Rejection } from '../../shared/protocol/rejection.ts';
import { planInstruction } from './plan.ts';
import { showPresence, type AgentPresence } from './presence.ts';
import type { BlockView } from '../../shared/model/doc-content.ts';

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
}

export interface RunningAgent {
  /** Stops polling, finishes nothing new, and resolves once the loop has ended. */
  stop(): Promise<void>;
  /**
   * Resolves when the loop ends after `stop()`; rejects when it gives up by itself: the server
   * refused the token (401, or 403: not an agent's).
   */
  done: Promise<void>;
}

export const referenceAgentName = 'Reference agent';

const retryDelayMs = 1000;
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
  const abort = new AbortController();
  let stopped = false;

  const loop = (async () => {
    while (!stopped) {
      let queued;
      try {
        queued = await client.queuedRuns(options.pollSeconds ?? 25, abort.signal);
      } catch (error) {
        if (stopped) break;
        if (error instanceof Rejection && (error.status === 401 || error.status === 403)) {
          throw new Error(`The server refused the agent's token: ${error.message}`);
        }
        log(`waiting for the server: ${describe(error)}`);
        await sleep(retryDelayMs, abort.signal);
        continue;
      }
      for (const run of queued) {
        if (stopped) break;
        let claimed: ClaimedRun;
        try {
          claimed = await client.claim(run.runId);
        } catch (error) {
          if (error instanceof Rejection && error.status === 409) continue;
          log(`could not claim ${run.runId}: ${describe(error)}`);
          continue;
        }
        const presence = options.presence === false ? null : joinAsPeer(options, claimed);
        try {
          await work(client, claimed, log, presence);
        } finally {
          presence?.leave();
        }
      }
    }
  })();
  loop.catch(() => {});

  return {
    async stop() {
      stopped = true;
      abort.abort();
      await loop.catch(() => {});
    },
    done: loop,
  };
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
): Promise<void> {
  const heartbeat = keepLeaseAlive(client, run, log);
  try {
    await presence?.ready;
    let blocks = run.document.blocks;
    const refusals: Refusal[] = [];
    let changed = 0;
    for (const [index, item] of run.items.entries()) {
      for (let attempt = 1; ; attempt++) {
        const plan = planInstruction(item.instructionId, item.instruction, findBlock(blocks, item.blockId));
        if (plan.kind === 'refusal') {
          refusals.push({ instructionId: item.instructionId, reason: plan.reason });
          break;
        }
        try {
          await client.sendOps(run.runId, `${run.runId}:${index}:${attempt}`, plan.ops);
          changed++;
          blocks = (await client.document(run.docId)).blocks;
          break;
        } catch (error) {
          const stale = error instanceof Rejection && error.code === 'STALE_BLOCK';
          if (!stale || attempt >= staleRetries) throw error;
          blocks = (await client.document(run.docId)).blocks;
        }
      }
    }
    const summary = `Answered ${changed} of ${run.items.length} instruction${run.items.length === 1 ? '' : 's'}` +
      (refusals.length ? `; refused ${refusals.length}.` : '.');
    await client.complete(run.runId, summary, refusals);
    log(`run ${run.runId}: ${summary}`);
  } catch (error) {
    log(`run ${run.runId} failed: ${describe(error)}`);
    await client.fail(run.runId, `The reference agent stopped: ${describe(error)}`).catch(() => {});
  } finally {
    heartbeat.stop();
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

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Waits `ms`, or less when `signal` aborts; never rejects. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => undefined);
}
