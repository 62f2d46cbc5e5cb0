import { setTimeout as delay } from 'node:timers/promises';
import type { AgentApiClient, AgentAside } from './agent-api-client.ts';
import { describeError } from './peer-loop.ts';
import { Rejection } from '../shared/protocol/rejection.ts';

export interface AsideListener {
  /** Stops listening and waits for the asides being answered. */
  stop(): Promise<void>;
}

const retryDelayMs = 1000;

/**
 * Long-polls the asides of a run this agent holds (ASIDE4) while it works on it, and hands each
 * to `answer` as it comes; answers run side by side, so a slow one holds up no other. Listening
 * ends by itself when the server says the run is no longer this agent's (409 `NOT_CLAIMED`).
 */
export function listenForAsides(options: {
  client: AgentApiClient;
  runId: string;
  answer(aside: AgentAside, signal: AbortSignal): Promise<void>;
  log: (message: string) => void;
  /** Seconds one long poll may be held (at most 30). */
  pollSeconds?: number;
}): AsideListener {
  const { client, runId, log } = options;
  const abort = new AbortController();
  const answering = new Set<Promise<void>>();
  const loop = (async () => {
    while (!abort.signal.aborted) {
      let asides: AgentAside[];
      try {
        asides = await client.asides(runId, options.pollSeconds ?? 25, abort.signal);
      } catch (error) {
        if (abort.signal.aborted) break;
        if (error instanceof Rejection && (error.code === 'NOT_CLAIMED' || error.status === 404 || error.status === 403)) break;
        log(`asides of ${runId}: ${describeError(error)}`);
        await delay(retryDelayMs, undefined, { signal: abort.signal }).catch(() => undefined);
        continue;
      }
      for (const aside of asides) {
        const answered = options
          .answer(aside, abort.signal)
          .catch((error) => log(`aside ${aside.asideId} of ${runId}: ${describeError(error)}`))
          .finally(() => answering.delete(answered));
        answering.add(answered);
      }
    }
  })();
  return {
    async stop() {
      abort.abort();
      await loop;
      await Promise.all([...answering]);
    },
  };
}
