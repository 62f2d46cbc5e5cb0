import { describe, expect, it } from 'vitest';
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

  it.each([
    [{ LEASE_MS: 'soon' }, /^LEASE_MS must be a number of milliseconds/],
    [{ LEASE_MS: '10' }, /^LEASE_MS must be/],
    [{ TANDEM_AGENT: 'gpt' }, /^TANDEM_AGENT must be "reference" \(the built-in agent\) or "off" \(no agent\), not "gpt"$/],
  ])('refuse %o with a RangeError that says what they take', (env, message) => {
    expect(() => resolveServerOptions({}, env)).toThrow(RangeError);
    expect(() => resolveServerOptions({}, env)).toThrow(message);
  });
});
