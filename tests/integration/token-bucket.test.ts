import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../server/token-bucket.ts';

describe('TokenBucket', () => {
  it('gives a burst, then refills at its rate up to the burst again', () => {
    let now = 0;
    const bucket = new TokenBucket({ burst: 3, perSecond: 2 }, () => now);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
    expect(bucket.retryAfterSeconds()).toBe(1);

    now = 500;
    expect([bucket.take(), bucket.take()]).toEqual([true, false]);

    now = 60_000;
    expect(bucket.isFull()).toBe(true);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
  });

  it('tells how many whole seconds a slow bucket needs for one token', () => {
    const bucket = new TokenBucket({ burst: 1, perSecond: 0.1 }, () => 0);
    bucket.take();
    expect(bucket.retryAfterSeconds()).toBe(10);
  });
});
