import { setTimeout as delay } from 'node:timers/promises';
import type { AgentApiClient, ClaimedRun } from './agent-api-client.ts';
import { Rejection } from '../shared/protocol/rejection.ts';

export interface RunningAgent {
  /** Stops polling, finishes nothing new, and resolves once the loop has ended. */
  stop(): Promise<void>;
  /**
   * Resolves when the loop ends after `stop()`; rejects when it gives up by itself: the server
   * refused the token (401, or 403: not an agent's).
   */
  done: Promise<void>;
}

export interface PeerLoopOptions {
  client: AgentApiClient;
  /** Seconds one long poll for queued runs may be held by the server (at most 30). */
  pollSeconds?: number;
  log: (message: string) => void;
  /** Does the work of a run this agent has just claimed; `signal` aborts when the agent stops. */
  work(claimed: ClaimedRun, signal: AbortSignal): Promise<void>;
}

const retryDelayMs = 1000;

/**
 * The loop every agent of this folder runs as a peer of the server: long-poll the queued runs
 * (QUEUE1), claim each in turn (CLAIM1; a run another agent won is skipped quietly) and work on
 * it, until `stop()`. A server that cannot be reached is asked again after a second; a token it
 * refuses ends the loop (`done` rejects).
 */
export function runPeerLoop(options: PeerLoopOptions): RunningAgent {
  const { client, log } = options;
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
          throw new Error(`The server refused the agent's token: ${error.message}`, { cause: error });
        }
        log(`waiting for the server: ${describeError(error)}`);
        await delay(retryDelayMs, undefined, { signal: abort.signal }).catch(() => undefined);
        continue;
      }
      for (const run of queued) {
        if (stopped) break;
        let claimed: ClaimedRun;
        try {
          claimed = await client.claim(run.runId);
        } catch (error) {
          if (!(error instanceof Rejection && error.status === 409)) log(`could not claim ${run.runId}: ${describeError(error)}`);
          continue;
        }
        await options.work(claimed, abort.signal);
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

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
