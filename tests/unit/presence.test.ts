import { describe, expect, it } from 'vitest';
import { isPresenceColor, maxPresenceStateBytes, readPresenceUser, sanitizePresenceState } from '../../shared/protocol/presence.ts';

const identity = { name: 'Ada', role: 'commenter' as const };

describe('presence states', () => {
  it('[PRES1] takes name and role from the identity, whatever the state claims', () => {
    expect(sanitizePresenceState({ user: { name: 'Owner', role: 'editor', color: '#A0B1C2' } }, identity)).toEqual({
      user: { name: 'Ada', role: 'commenter', color: '#a0b1c2' },
    });
  });

  it('[PRES3] keeps only #rrggbb colours', () => {
    for (const color of ['red', '#fff', '#12345g', 'red;position:fixed;inset:0', '#123456;x:y', ' #123456', 'url(x)']) {
      expect(isPresenceColor(color)).toBe(false);
      expect(sanitizePresenceState({ user: { color } }, identity)).toEqual({ user: identity });
    }
    expect(isPresenceColor('#0aF19c')).toBe(true);
  });

  it('[PRES3] drops unknown fields, trims the status and refuses a state over the size limit', () => {
    const cursor = { anchor: { type: null }, head: { type: null } };
    expect(sanitizePresenceState({ user: { status: `  ${'s'.repeat(300)}  ` }, cursor, extra: 1 }, identity)).toEqual({
      user: { ...identity, status: 's'.repeat(200) },
      cursor,
    });
    expect(sanitizePresenceState({ cursor: { anchor: { big: 'x'.repeat(maxPresenceStateBytes) }, head: {} } }, identity)).toBeNull();
    expect(sanitizePresenceState('not an object', identity)).toBeNull();
  });

  it('[PRES4] reads for display only a named user with a known role, and drops a bad colour', () => {
    expect(readPresenceUser({ user: { name: 'Bo', role: 'editor', color: 'red;position:fixed' } })).toEqual({ name: 'Bo', role: 'editor' });
    expect(readPresenceUser({ user: { name: 'Bo', role: 'admin' } })).toBeNull();
    expect(readPresenceUser({ user: { name: '', role: 'editor' } })).toBeNull();
    expect(readPresenceUser({})).toBeNull();
  });
});
