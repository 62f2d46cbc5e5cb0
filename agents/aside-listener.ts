import { setTimeout as delay } from 'node:timers/promises';
import type { AgentApiClient, AgentAside } from './agent-api-client.ts';
import { describeError } from './peer-loop.ts';
import { Rejection } from '../shared/protocol/rejection.ts';

export interface AsideListener {
  /** Stops listening and waits for the asides being answered. */
  stop(): Promise<void>;
  /**
   * Before the run ends: waits up to `graceMs` for the asides being answered, and for any the
   * server has for the run already, to be answered, so that a question asked just before the
   * run ended still gets its answer; then stops.
   */
  finish(graceMs: number): Promise<void>;
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
  // Each long poll has its own signal: the run's finish cuts the one under way short, and a
  // last look that waits for nothing takes what the server holds; `abort` ends everything.
  let poll: AbortController | null = null;
  const answering = new Set<Promise<void>>();
  let finishing = false;
  const loop = (async () => {
    while (!abort.signal.aborted) {
      const last = finishing;
      const current = (poll = new AbortController());
      const onAbort = () => current.abort();
      abort.signal.addEventListener('abort', onAbort);
      let asides: AgentAside[];
      try {
        asides = await client.asides(runId, last ? 0 : (options.pollSeconds ?? 25), current.signal);
      } catch (error) {
        if (abort.signal.aborted) break;
        // Cut short by the finish: the last look comes next.
        if (current.signal.aborted && finishing && !last) continue;
        if (error instanceof Rejection && (error.code === 'NOT_CLAIMED' || error.status === 404 || error.status === 403)) break;
        log(`asides of ${runId}: ${describeError(error)}`);
        await delay(retryDelayMs, undefined, { signal: abort.signal }).catch(() => undefined);
        continue;
      } finally {
        abort.signal.removeEventListener('abort', onAbort);
        poll = null;
      }
      for (const aside of asides) {
        const answered = options
          .answer(aside, abort.signal)
          .catch((error) => log(`aside ${aside.asideId} of ${runId}: ${describeError(error)}`))
          .finally(() => answering.delete(answered));
        answering.add(answered);
      }
      if (last) break;
    }
  })();
  const stop = async () => {
    abort.abort();
    await loop;
    await Promise.all([...answering]);
  };
  return {
    stop,
    async finish(graceMs) {
      finishing = true;
      // The long poll under way would wait for an aside to come: it is cut short at once.
      poll?.abort();
      const deadline = delay(graceMs, undefined, { signal: abort.signal }).catch(() => undefined);
      await Promise.race([loop, deadline]);
      const drained = (async () => {
        while (answering.size > 0) await Promise.all([...answering]);
      })();
      await Promise.race([drained, deadline]);
      await stop();
    },
  };
}
