import { describe, expect, it } from 'vitest';
import { nextChangeIn, relativeTime } from '../../client/relative-time.ts';

const now = Date.UTC(2026, 5, 15, 12, 0, 0);
const minute = 60_000;

describe('card times', () => {
  it('read how long ago a note was written', () => {
    expect(relativeTime(now - 10_000, now)).toBe('just now');
    expect(relativeTime(now + 5 * minute, now)).toBe('just now');
    expect(relativeTime(now - 5 * minute, now)).toBe('5 min ago');
    expect(relativeTime(now - 59 * minute, now)).toBe('59 min ago');
    expect(relativeTime(now - 3 * 60 * minute, now)).toBe('3 h ago');
    expect(relativeTime(now - 30 * 60 * minute, now)).toBe('yesterday');
    expect(relativeTime(now - 4 * 24 * 60 * minute, now)).toBe('4 days ago');
    expect(relativeTime(now - 40 * 24 * 60 * minute, now)).not.toMatch(/ago|yesterday/);
  });

  it('say when they may read differently: every minute at first, then every hour', () => {
    expect(nextChangeIn(now - 5 * minute, now)).toBe(minute);
    expect(nextChangeIn(now - 5 * 60 * minute, now)).toBe(60 * minute);
  });
});
