import { setTimeout as delay } from 'node:timers/promises';
import { RetryableCallError } from './model-call-errors.ts';

export interface RetryPolicy {
  /** Further attempts after the first. */
  retries: number;
  /** The wait before the first retry; each further one doubles it. */
  baseDelayMs: number;
  /** No wait is longer, whatever `retry-after` asks. */
  maxDelayMs: number;
}

/**
 * [MODEL9] Calls `call` until it resolves, trying again after a model server answered 429 or
 * 5xx (a RetryableCallError) at most `policy.retries` times: after the `retry-after` the server
 * asked for, else after `baseDelayMs · 2^(attempt−1)`, never longer than `maxDelayMs`. Any other
 * failure, or the last one, is thrown as it is. `signal` ends a wait at once (it rejects with
 * the signal's reason). The SDKs' own retries stay off, so this is the one retry loop.
 */
export async function withRetries<T>(
  call: () => Promise<T>,
  policy: RetryPolicy,
  signal: AbortSignal,
  onRetry: (failure: RetryableCallError, waitMs: number, attempt: number) => void = () => {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (failure) {
      if (!(failure instanceof RetryableCallError) || attempt > policy.retries || signal.aborted) throw failure;
      const backoff = policy.baseDelayMs * 2 ** (attempt - 1);
      const waitMs = Math.min(policy.maxDelayMs, Math.max(0, failure.retryAfterMs ?? backoff));
      onRetry(failure, waitMs, attempt);
      try {
        await delay(waitMs, undefined, { signal });
      } catch {
        throw signal.reason ?? failure;
      }
    }
  }
}
