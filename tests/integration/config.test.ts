import { describe, expect, it } from 'vitest';
import { defaultRunLimits } from '../../agents/model/model-settings.ts';
import { resolveServerOptions } from '../../server/config.ts';

describe('server options from the environment', () => {
  it('default to a 30 s lease and the reference agent', () => {
    expect(resolveServerOptions({}, {})).toMatchObject({ leaseMs: 30_000, agent: 'reference', port: 8787 });
  });

  it('read LEASE_MS and TANDEM_AGENT, given options winning', () => {
    expect(resolveServerOptions({}, { LEASE_MS: '300', TANDEM_AGENT: 'off' })).toMatchObject({ leaseMs: 300, agent: 'off' });
    expect(resolveServerOptions({ leaseMs: 1000, agent: 'reference' }, { LEASE_MS: '300', TANDEM_AGENT: 'off' })).toMatchObject({
      leaseMs: 1000,
      agent: 'reference',
    });
  });

  it('read the model server of TANDEM_AGENT=openai from OPENAI_BASE_URL, OPENAI_API_KEY and TANDEM_MODEL', () => {
    const env = { TANDEM_AGENT: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1', TANDEM_MODEL: 'qwen' };
    expect(resolveServerOptions({}, env)).toMatchObject({
      agent: 'openai',
      openai: { baseURL: 'http://127.0.0.1:8080/v1', apiKey: '', model: 'qwen' },
    });
    expect(resolveServerOptions({}, { TANDEM_MODEL: 'qwen' }).openai).toBeNull();
  });

  it('[MODEL9] read the limits of model runs for a model agent, the defaults for the rest', () => {
    const env = { TANDEM_AGENT: 'openai', TANDEM_MODEL: 'qwen', TANDEM_MAX_TURNS: '8', TANDEM_MAX_TOKENS_PER_RUN: '9000', TANDEM_MODEL_TIMEOUT_MS: '30000' };
    const options = resolveServerOptions({}, env);
    expect(options.modelLimits).toEqual({ ...defaultRunLimits, maxTurns: 8, maxTokensPerRun: 9000 });
    expect(options.openai?.callTimeoutMs).toBe(30_000);
    expect(resolveServerOptions({}, { TANDEM_MAX_TURNS: 'many' }).modelLimits).toEqual(defaultRunLimits);
    expect(() => resolveServerOptions({}, { ...env, TANDEM_MAX_TURNS: 'many' })).toThrow(/^TANDEM_MAX_TURNS must be a whole number from 1 to 1000, not "many"$/);
  });

  it('read the model server of TANDEM_AGENT=anthropic from ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY and TANDEM_MODEL', () => {
    const env = { TANDEM_AGENT: 'anthropic', ANTHROPIC_API_KEY: 'sk-ant', TANDEM_MODEL: 'claude-sonnet-4-5' };
    expect(resolveServerOptions({}, env)).toMatchObject({
      agent: 'anthropic',
      anthropic: { baseURL: 'https://api.anthropic.com', apiKey: 'sk-ant', model: 'claude-sonnet-4-5' },
      openai: null,
    });
    expect(resolveServerOptions({}, { ...env, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/' }).anthropic?.baseURL).toBe('http://127.0.0.1:9/');
    expect(resolveServerOptions({}, { TANDEM_MODEL: 'claude' }).anthropic).toBeNull();
  });

  it('[SCALE1] takes DATABASE_URL and REDIS_URL from the environment, SQLite alone when neither is set', () => {
    expect(resolveServerOptions({}, {})).toMatchObject({ databaseUrl: null, redisUrl: null });
    const env = { DATABASE_URL: 'postgres://tandem:secret@db:5432/tandem', REDIS_URL: 'redis://cache:6379' };
    expect(resolveServerOptions({}, env)).toMatchObject({ databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL });
  });

  it('[LIMIT10] read the work pool\'s time limit from TANDEM_WORK_TASK_MS, 20 s by default, given limits winning', () => {
    expect(resolveServerOptions({}, {}).limits.workTaskMs).toBe(20_000);
    expect(resolveServerOptions({}, { TANDEM_WORK_TASK_MS: '250' }).limits.workTaskMs).toBe(250);
    expect(resolveServerOptions({ limits: { workTaskMs: 900 } }, { TANDEM_WORK_TASK_MS: '250' }).limits.workTaskMs).toBe(900);
  });

  it.each([
    [{ TANDEM_WORK_TASK_MS: '0' }, /^TANDEM_WORK_TASK_MS must be a whole number of milliseconds, at least 1, not "0"$/],
    [{ TANDEM_WORK_TASK_MS: '2s' }, /^TANDEM_WORK_TASK_MS must be/],
    [{ LEASE_MS: 'soon' }, /^LEASE_MS must be a number of milliseconds/],
    [{ LEASE_MS: '10' }, /^LEASE_MS must be/],
    [{ TANDEM_AGENT: 'gpt' }, /^TANDEM_AGENT must be "reference" \(the built-in agent\), "openai" or "anthropic" \(the model agent\) or "off" \(no agent\), not "gpt"$/],
    [{ TANDEM_AGENT: 'openai' }, /^Name the model: TANDEM_MODEL=NAME/],
    [{ TANDEM_AGENT: 'anthropic' }, /^Name the model: TANDEM_MODEL=NAME, or --model anthropic:NAME$/],
    [{ DATABASE_URL: 'mysql://db/tandem' }, /^DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/, not "mysql:\/\/"$/],
    [{ DATABASE_URL: 'not a url' }, /^DATABASE_URL must be a URL/],
    [{ PUBLIC_URL: 'ftp://docs.example.org' }, /^PUBLIC_URL must start with http:\/\/ or https:\/\//],
    [{ REDIS_URL: 'redis://127.0.0.1:6379' }, /^REDIS_URL needs DATABASE_URL/],
    [{ DATABASE_URL: 'postgres://db/tandem', REDIS_URL: 'http://cache' }, /^REDIS_URL must start with redis:\/\/ or rediss:\/\//],
  ])('refuse %o with a RangeError that says what they take', (env, message) => {
    expect(() => resolveServerOptions({}, env)).toThrow(RangeError);
    expect(() => resolveServerOptions({}, env)).toThrow(message);
  });
});
