import { ModelCallError } from './tool-loop.ts';

/**
 * A model call answered 429 or 5xx: another attempt may succeed (agents/model/model-retry.ts).
 * `retryAfterMs` is what the server's `retry-after-ms` or `retry-after` header asked for.
 */
export class RetryableCallError extends ModelCallError {
  constructor(
    message: string,
    readonly status: number,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * The error classes an SDK generated from an OpenAPI description (the `openai` and
 * `@anthropic-ai/sdk` packages both are) throws, passed in by each provider.
 */
export interface SdkErrors {
  APIUserAbortError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIError: ErrorClass;
}

/** What a failure message names: the server, the model, and the settings a person would check. */
export interface ModelServer {
  where: string;
  model: string;
  callTimeoutMs: number;
  /** The environment variable that holds the key, e.g. `OPENAI_API_KEY`. */
  keyVariable: string;
  /** The environment variable that names the server, e.g. `OPENAI_BASE_URL`. */
  baseUrlVariable: string;
}

/**
 * [MODEL5] Turns a failed model call into what the run's failure says: an abort is passed on as
 * the signal's reason; anything else becomes a ModelCallError that tells a person what to check.
 */
export function explainCallFailure(error: unknown, sdk: SdkErrors, server: ModelServer, signal: AbortSignal, deadline?: AbortSignal): unknown {
  const { where } = server;
  if (deadline?.aborted && !signal.aborted) return new ModelCallError(`The model server at ${where} did not answer within ${duration(server.callTimeoutMs)}.`);
  if (signal.aborted || error instanceof sdk.APIUserAbortError || error instanceof ModelCallError) return signal.reason ?? error;
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new ModelCallError(`The model server at ${where} did not answer within ${duration(server.callTimeoutMs)}.`);
  }
  if (error instanceof sdk.APIConnectionError) {
    return new ModelCallError(`Could not reach the model server at ${where}: check ${server.baseUrlVariable} and that the server is running.`);
  }
  const status = error instanceof sdk.APIError ? (error as Error & { status?: number }).status : undefined;
  if (status !== undefined) {
    const hint =
      status === 401 || status === 403
        ? `check ${server.keyVariable}`
        : status === 404
          ? `check TANDEM_MODEL ("${server.model}") and ${server.baseUrlVariable}`
          : status === 429 || status === 529
            ? 'the server is busy or the quota is used up; send the run again later'
            : "see the model server's log";
    const message = `The model server at ${where} answered ${status}: ${hint}.`;
    if (status === 429 || status >= 500) return new RetryableCallError(message, status, retryAfterMs((error as { headers?: unknown }).headers));
    return new ModelCallError(message);
  }
  return new ModelCallError(`The model server at ${where} gave an answer that could not be read: ${error instanceof Error ? error.message : String(error)}`);
}

/** The wait a response's headers ask for before another attempt: `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: unknown, now = Date.now()): number | undefined {
  if (!(headers instanceof Headers)) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms.trim());
  const after = headers.get('retry-after')?.trim();
  if (!after) return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Number(after) * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * [MODEL9] The signal of one model call: `signal`, or the call's deadline, whichever comes first.
 * The SDKs' own `timeout` stops waiting once the answer's headers came, so a stream that stalls
 * after them would hold the run (and its lease, kept alive) for ever; this deadline covers the
 * whole call, the stream included.
 */
export function withDeadline(signal: AbortSignal, ms: number): { signal: AbortSignal; deadline: AbortSignal } {
  const deadline = AbortSignal.timeout(ms);
  return { signal: AbortSignal.any([signal, deadline]), deadline };
}

function duration(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}
