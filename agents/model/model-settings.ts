import type { ModelServer } from './model-call-errors.ts';

/** How to reach one model: its server, the key, the model's name and how long a call may take. */
export interface ModelSettings {
  /** The provider's API, e.g. `http://127.0.0.1:8080/v1` or `https://api.anthropic.com`. */
  baseURL: string;
  /** The key; empty for a local server that asks for none. */
  apiKey: string;
  /** The model's name on that server (`TANDEM_MODEL`). */
  model: string;
  /** How long one model call may take, in milliseconds. */
  callTimeoutMs: number;
}

export const defaultCallTimeoutMs = 120_000;

/** What one run may spend (docs/agents.md, "Model-backed agents"); each has an environment variable. */
export interface RunLimits {
  /** Model calls of the tool loop per run (`TANDEM_MAX_TURNS`). */
  maxTurns: number;
  /** Input plus output tokens per run, as the provider reports them (`TANDEM_MAX_TOKENS_PER_RUN`). */
  maxTokensPerRun: number;
  /** Further attempts of a call answered 429 or 5xx (`TANDEM_MODEL_RETRIES`). */
  retries: number;
  /** The first wait before another attempt, doubled at each; `retry-after` wins when the server sends it. */
  retryBaseDelayMs: number;
  /** The longest wait before another attempt (`TANDEM_MODEL_RETRY_MAX_DELAY_MS`). */
  retryMaxDelayMs: number;
}

export const defaultRunLimits: RunLimits = {
  maxTurns: 20,
  maxTokensPerRun: 200_000,
  retries: 3,
  retryBaseDelayMs: 1000,
  retryMaxDelayMs: 30_000,
};

/** The run limits the environment sets, the defaults for the rest; a RangeError for a malformed value. */
export function runLimitsFromEnv(env: NodeJS.ProcessEnv): RunLimits {
  return {
    maxTurns: wholeNumber(env, 'TANDEM_MAX_TURNS', 1, 1000) ?? defaultRunLimits.maxTurns,
    maxTokensPerRun: wholeNumber(env, 'TANDEM_MAX_TOKENS_PER_RUN', 1, 1_000_000_000) ?? defaultRunLimits.maxTokensPerRun,
    retries: wholeNumber(env, 'TANDEM_MODEL_RETRIES', 0, 10) ?? defaultRunLimits.retries,
    retryBaseDelayMs: defaultRunLimits.retryBaseDelayMs,
    retryMaxDelayMs: wholeNumber(env, 'TANDEM_MODEL_RETRY_MAX_DELAY_MS', 0, 600_000) ?? defaultRunLimits.retryMaxDelayMs,
  };
}

function wholeNumber(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) throw new RangeError(`${name} must be a whole number from ${min} to ${max}, not "${value}"`);
  return number;
}

/** The environment of each provider (docs/agents.md, "Model-backed agents"). */
const providers = {
  openai: { baseUrlVariable: 'OPENAI_BASE_URL', keyVariable: 'OPENAI_API_KEY', defaultBaseUrl: 'https://api.openai.com/v1' },
  anthropic: { baseUrlVariable: 'ANTHROPIC_BASE_URL', keyVariable: 'ANTHROPIC_API_KEY', defaultBaseUrl: 'https://api.anthropic.com' },
} as const;

export type ProviderName = keyof typeof providers;

/** The settings the environment gives, with `model` (from `--model PROVIDER:NAME`) winning over `TANDEM_MODEL`. */
export function modelSettingsFromEnv(provider: ProviderName, env: NodeJS.ProcessEnv, model?: string): ModelSettings {
  const { baseUrlVariable, keyVariable, defaultBaseUrl } = providers[provider];
  const name = model || env.TANDEM_MODEL;
  if (!name) throw new RangeError(`Name the model: TANDEM_MODEL=NAME, or --model ${provider}:NAME`);
  const callTimeoutMs = wholeNumber(env, 'TANDEM_MODEL_TIMEOUT_MS', 100, 3_600_000) ?? defaultCallTimeoutMs;
  return { baseURL: env[baseUrlVariable] || defaultBaseUrl, apiKey: env[keyVariable] ?? '', model: name, callTimeoutMs };
}

/** What a failed call's message names for `provider` (model-call-errors.ts). */
export function modelServer(provider: ProviderName, settings: ModelSettings): ModelServer {
  const { baseUrlVariable, keyVariable } = providers[provider];
  return { where: settings.baseURL, model: settings.model, callTimeoutMs: settings.callTimeoutMs, keyVariable, baseUrlVariable };
}
