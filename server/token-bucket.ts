import type { Rate } from './limits.ts';

/**
 * A token bucket: `take()` spends one token if there is one. Refills continuously at
 * `rate.perSecond` up to `rate.burst`.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly rate: Rate,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = rate.burst;
    this.updatedAt = now();
  }

  take(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Whole seconds until one token is back (at least 1). */
  retryAfterSeconds(): number {
    this.refill();
    return Math.max(1, Math.ceil((1 - this.tokens) / this.rate.perSecond));
  }

  /** Whether the bucket is full again, so that a holder of many buckets may forget it. */
  isFull(): boolean {
    this.refill();
    return this.tokens >= this.rate.burst;
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.rate.burst, this.tokens + ((now - this.updatedAt) / 1000) * this.rate.perSecond);
    this.updatedAt = now;
  }
}

/** One bucket per key (a token subject), made on first use; full buckets are swept now and then. */
export class KeyedBuckets {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(private readonly rate: Rate) {}

  /** Spends one token of `key`'s bucket: null, or the whole seconds to wait when it is empty. */
  take(key: string): number | null {
    if (this.buckets.size > 10_000) this.sweep();
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = new TokenBucket(this.rate)));
    return bucket.take() ? null : bucket.retryAfterSeconds();
  }

  private sweep(): void {
    for (const [key, bucket] of this.buckets) if (bucket.isFull()) this.buckets.delete(key);
  }
}
