import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { oldestSupportedProtocol } from '../shared/protocol/protocol-version.ts';
import { resolveLimits, type Limits } from './limits.ts';
import { openAiSettingsFromEnv, type OpenAiSettings } from '../agents/model/openai-provider.ts';
import { anthropicSettingsFromEnv, type AnthropicSettings } from '../agents/model/anthropic-provider.ts';
import { defaultRunLimits, runLimitsFromEnv, type RunLimits } from '../agents/model/model-settings.ts';

export interface ServerOptions {
  /** 0 picks a free port. */
  port: number;
  host: string;
  dataDir: string;
  /** The built client (Vite's output). */
  distDir: string;
  /** No log lines, errors aside. */
  quiet: boolean;
  /** How long a run's claim lasts without a heartbeat, in milliseconds. */
  leaseMs: number;
  /** The clock that claims, heartbeats and lease expiry read (milliseconds); tests drive it by hand. */
  leaseClock: () => number;
  /** Which agent the server starts in-process: the reference agent, the model agent, or none. */
  agent: AgentChoice;
  /** With `agent: 'openai'`: the model server and model (`OPENAI_BASE_URL`, `OPENAI_API_KEY`, `TANDEM_MODEL`); else null. */
  openai: OpenAiSettings | null;
  /** With `agent: 'anthropic'`: the Messages API server and model (`ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`, `TANDEM_MODEL`); else null. */
  anthropic: AnthropicSettings | null;
  /** What one run of the model agent may spend (`TANDEM_MAX_TURNS`, `TANDEM_MAX_TOKENS_PER_RUN`, `TANDEM_MODEL_RETRIES`, …). */
  modelLimits: RunLimits;
  /** What one client may ask of the server; given fields replace the defaults. */
  limits: Limits;
  /** How long a person's side question waits for the agent's answer before it goes to the run as a steer (ASIDE7). */
  asideTimeoutMs: number;
  /** `postgres://…`: keep everything in PostgreSQL instead of `<dataDir>/tandem.sqlite` (SCALE1); null for SQLite. */
  databaseUrl: string | null;
  /** `redis://…`: share live documents with the other instances on this Redis (SCALE4); null for one instance. */
  redisUrl: string | null;
  /** `https://…` where people reach this server (`PUBLIC_URL`), for links it makes such as invites; null: the request's own `Host`. */
  publicUrl: string | null;
  /** HIST2: how long people may write before their text is kept as an automatic version (`TANDEM_VERSION_EVERY_MS`; 5 minutes). */
  versionEveryMs: number;
  /** VER3: the oldest protocol version whose clients are served (shared/protocol/protocol-version.ts); tests raise it to stand in for a release that did. */
  oldestProtocol: number;
}

export const agentChoices = ['reference', 'openai', 'anthropic', 'off'] as const;
export type AgentChoice = (typeof agentChoices)[number];

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * Complete options: those given win, then the environment (`PORT`, `HOST`, `DATA_DIR`,
 * `LEASE_MS`, `TANDEM_AGENT`, and for `TANDEM_AGENT=openai` `OPENAI_BASE_URL`, `OPENAI_API_KEY`,
 * `TANDEM_MODEL`, for `TANDEM_AGENT=anthropic` `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`,
 * `TANDEM_MODEL`, and for either the run limits of `runLimitsFromEnv`; `DATABASE_URL`, `REDIS_URL`;
 * `TANDEM_WORK_TASK_MS` for `limits.workTaskMs`; `PUBLIC_URL`; `TANDEM_VERSION_EVERY_MS`), then the defaults. Paths come back absolute.
 * Throws a RangeError for a malformed `PORT`, `LEASE_MS`, `TANDEM_WORK_TASK_MS`,
 * `DATABASE_URL`, `REDIS_URL`, `PUBLIC_URL` or `TANDEM_VERSION_EVERY_MS`, `REDIS_URL` without `DATABASE_URL`, an unknown `TANDEM_AGENT`, and
 * a model agent without `TANDEM_MODEL`.
 */
export function resolveServerOptions(
  given: Partial<Omit<ServerOptions, 'limits'>> & { limits?: Partial<Limits> } = {},
  env: NodeJS.ProcessEnv = process.env,
): ServerOptions {
  const agent = given.agent ?? parseAgent(env.TANDEM_AGENT);
  const databaseUrl = given.databaseUrl !== undefined ? given.databaseUrl : parseUrl('DATABASE_URL', env.DATABASE_URL, ['postgres:', 'postgresql:']);
  const redisUrl = given.redisUrl !== undefined ? given.redisUrl : parseUrl('REDIS_URL', env.REDIS_URL, ['redis:', 'rediss:']);
  // Instances that share live documents must share the catalogue, the runs and the log too.
  if (redisUrl && !databaseUrl) throw new RangeError('REDIS_URL needs DATABASE_URL: instances that share documents share one PostgreSQL database');
  return {
    port: given.port ?? parsePort(env.PORT),
    host: given.host ?? (env.HOST || '127.0.0.1'),
    dataDir: resolve(given.dataDir ?? (env.DATA_DIR || './data')),
    distDir: resolve(given.distDir ?? resolve(repoRoot, 'dist')),
    quiet: given.quiet ?? false,
    leaseMs: given.leaseMs ?? parseLeaseMs(env.LEASE_MS),
    leaseClock: given.leaseClock ?? Date.now,
    agent,
    openai: given.openai ?? (agent === 'openai' ? openAiSettingsFromEnv(env) : null),
    anthropic: given.anthropic ?? (agent === 'anthropic' ? anthropicSettingsFromEnv(env) : null),
    modelLimits: given.modelLimits ?? (agent === 'openai' || agent === 'anthropic' ? runLimitsFromEnv(env) : defaultRunLimits),
    limits: resolveLimits({ ...workTaskMsFromEnv(env.TANDEM_WORK_TASK_MS), ...given.limits }),
    asideTimeoutMs: given.asideTimeoutMs ?? 60_000,
    databaseUrl,
    redisUrl,
    oldestProtocol: given.oldestProtocol ?? oldestSupportedProtocol,
    versionEveryMs: given.versionEveryMs ?? parseVersionEveryMs(env.TANDEM_VERSION_EVERY_MS),
    publicUrl: given.publicUrl !== undefined ? given.publicUrl : originOnly(parseUrl('PUBLIC_URL', env.PUBLIC_URL, ['http:', 'https:'])),
  };
}

function parseLeaseMs(value: string | undefined): number {
  if (value === undefined || value === '') return 30_000;
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 50 || ms > 86_400_000) {
    throw new RangeError(`LEASE_MS must be a number of milliseconds from 50 to 86400000, not "${value}"`);
  }
  return ms;
}

function parseVersionEveryMs(value: string | undefined): number {
  if (value === undefined || value === '') return 5 * 60_000;
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 100 || ms > 86_400_000) {
    throw new RangeError(`TANDEM_VERSION_EVERY_MS must be a number of milliseconds from 100 to 86400000, not "${value}"`);
  }
  return ms;
}

function parseAgent(value: string | undefined): AgentChoice {
  if (value === undefined || value === '') return 'reference';
  if ((agentChoices as readonly string[]).includes(value)) return value as AgentChoice;
  throw new RangeError(`TANDEM_AGENT must be "reference" (the built-in agent), "openai" or "anthropic" (the model agent) or "off" (no agent), not "${value}"`);
}

function parseUrl(name: string, value: string | undefined, protocols: readonly string[]): string | null {
  if (value === undefined || value === '') return null;
  let protocol: string;
  try {
    protocol = new URL(value).protocol;
  } catch {
    throw new RangeError(`${name} must be a URL (${protocols.map((p) => `${p}//…`).join(' or ')})`);
  }
  if (!protocols.includes(protocol)) throw new RangeError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}, not "${protocol}//"`);
  return value;
}

/** A URL's `scheme://host[:port]`, which is all a link of this server's is built on. */
function originOnly(url: string | null): string | null {
  return url === null ? null : new URL(url).origin;
}

/** `TANDEM_WORK_TASK_MS` as a `limits` entry, or none when it is unset. */
function workTaskMsFromEnv(value: string | undefined): Partial<Limits> {
  if (value === undefined || value === '') return {};
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 1) throw new RangeError(`TANDEM_WORK_TASK_MS must be a whole number of milliseconds, at least 1, not "${value}"`);
  return { workTaskMs: ms };
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value === '') return 8787;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new RangeError(`PORT must be a number from 0 to 65535, not "${value}"`);
  return port;
}

/** The data directory the environment names, for commands that run without a server. */
export function dataDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.DATA_DIR || './data');
}
