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

/** The environment of each provider (README, "Model-backed agents"). */
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
  return { baseURL: env[baseUrlVariable] || defaultBaseUrl, apiKey: env[keyVariable] ?? '', model: name, callTimeoutMs: defaultCallTimeoutMs };
}

/** What a failed call's message names for `provider` (model-call-errors.ts). */
export function modelServer(provider: ProviderName, settings: ModelSettings): ModelServer {
  const { baseUrlVariable, keyVariable } = providers[provider];
  return { where: settings.baseURL, model: settings.model, callTimeoutMs: settings.callTimeoutMs, keyVariable, baseUrlVariable };
}
