import { describe, expect, it } from 'vitest';
import { RetryableCallError, retryAfterMs } from '../../agents/model/model-call-errors.ts';
import { withRetries } from '../../agents/model/model-retry.ts';
import { defaultRunLimits, modelSettingsFromEnv, runLimitsFromEnv } from '../../agents/model/model-settings.ts';
import { ModelCallError } from '../../agents/model/tool-loop.ts';

/* The limits of a model run (MODEL9): settings, retry-after, the retry loop. */

describe('retryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('[MODEL9] reads retry-after in seconds, as an HTTP date, and retry-after-ms first', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '7' }), now)).toBe(7000);
    expect(retryAfterMs(new Headers({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:12 GMT' }), now)).toBe(12_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ 'retry-after': '7', 'retry-after-ms': '250' }), now)).toBe(250);
  });

  it('[MODEL9] reads nothing from a missing or unreadable header', () => {
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe('withRetries', () => {
  const busy = (retryAfter?: number) => new RetryableCallError('busy', 429, retryAfter);

  it('[MODEL9] tries again after a retryable failure, doubling its wait up to the cap', async () => {
    const waits: number[] = [];
    let calls = 0;
    const answer = await withRetries(
      async () => {
        if (++calls < 4) throw busy();
        return 'ok';
      },
      { retries: 3, baseDelayMs: 1, maxDelayMs: 3 },
      new AbortController().signal,
      (_failure, waitMs) => waits.push(waitMs),
    );
    expect(answer).toBe('ok');
    expect(waits).toEqual([1, 2, 3]);
  });

  it('[MODEL9] waits what retry-after asks, within the cap', async () => {
    const waits: number[] = [];
    const failures = [busy(2), busy(50_000)];
    await withRetries(
      async () => {
        const failure = failures.shift();
        if (failure) throw failure;
      },
      { retries: 3, baseDelayMs: 1000, maxDelayMs: 5 },
      new AbortController().signal,
      (_failure, waitMs) => waits.push(waitMs),
    );
    expect(waits).toEqual([2, 5]);
  });

  it('[MODEL9] throws at once what is not retryable, and the last failure when the retries are spent', async () => {
    const refused = new ModelCallError('401');
    await expect(withRetries(() => Promise.reject(refused), { retries: 3, baseDelayMs: 0, maxDelayMs: 0 }, new AbortController().signal)).rejects.toBe(refused);
    let calls = 0;
    const last = busy();
    await expect(
      withRetries(() => Promise.reject(++calls === 3 ? last : busy()), { retries: 2, baseDelayMs: 0, maxDelayMs: 0 }, new AbortController().signal),
    ).rejects.toBe(last);
    expect(calls).toBe(3);
  });

  it('[MODEL9] ends a wait when the signal aborts, with its reason', async () => {
    const abort = new AbortController();
    const stopped = new Error('stopped');
    const waiting = withRetries(() => Promise.reject(busy()), { retries: 1, baseDelayMs: 600_000, maxDelayMs: 600_000 }, abort.signal, () =>
      queueMicrotask(() => abort.abort(stopped)),
    );
    await expect(waiting).rejects.toBe(stopped);
  });
});

describe('the settings of model runs', () => {
  it('[MODEL9] come from the environment, with defaults', () => {
    expect(runLimitsFromEnv({})).toEqual(defaultRunLimits);
    expect(runLimitsFromEnv({ TANDEM_MAX_TURNS: '5', TANDEM_MAX_TOKENS_PER_RUN: '5000', TANDEM_MODEL_RETRIES: '0', TANDEM_MODEL_RETRY_MAX_DELAY_MS: '100' })).toEqual({
      ...defaultRunLimits,
      maxTurns: 5,
      maxTokensPerRun: 5000,
      retries: 0,
      retryMaxDelayMs: 100,
    });
    expect(modelSettingsFromEnv('openai', { TANDEM_MODEL: 'm' }).callTimeoutMs).toBe(120_000);
    expect(modelSettingsFromEnv('openai', { TANDEM_MODEL: 'm', TANDEM_MODEL_TIMEOUT_MS: '5000' }).callTimeoutMs).toBe(5000);
  });

  it.each([
    ['TANDEM_MAX_TURNS', '0'],
    ['TANDEM_MAX_TOKENS_PER_RUN', 'lots'],
    ['TANDEM_MODEL_RETRIES', '-1'],
    ['TANDEM_MODEL_TIMEOUT_MS', '1.5'],
  ])('[MODEL9] refuse %s=%s with a RangeError naming it', (name, value) => {
    const env = { TANDEM_MODEL: 'm', [name]: value };
    expect(() => {
      runLimitsFromEnv(env);
      modelSettingsFromEnv('openai', env);
    }).toThrow(new RegExp(`^${name} must be a whole number`));
  });
});
