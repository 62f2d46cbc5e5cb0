import type { Claims } from '../../shared/protocol/claims.ts';
import type { Limits } from '../limits.ts';
import { Rejection } from '../../shared/protocol/rejection.ts';
import { KeyedBuckets } from '../token-bucket.ts';

/**
 * The per-token limits of the JSON API (LIMIT5, LIMIT6): requests, document creations and
 * long polls waiting at once, counted by token subject. Refusals are Rejections 429
 * `RATE_LIMITED` whose `retryAfter` (seconds) api.ts sends as `Retry-After`.
 */
export class ApiLimits {
  private readonly requests: KeyedBuckets;
  private readonly creations: KeyedBuckets;
  private readonly asides: KeyedBuckets;
  private readonly polls = new Map<string, number>();

  constructor(private readonly limits: Limits) {
    this.requests = new KeyedBuckets(limits.httpRequests);
    this.creations = new KeyedBuckets(limits.docCreations);
    this.asides = new KeyedBuckets(limits.asides);
  }

  /**
   * Admits one request of `principal` or throws; the returned function must be called when
   * the request is answered (it ends a long poll's turn).
   */
  admit(principal: Claims, method: string, url: URL): () => void {
    refuseIfWaiting(this.requests.take(principal.sub), 'Too many requests for this token.');
    if (method === 'POST' && url.pathname === '/api/docs') {
      refuseIfWaiting(this.creations.take(principal.sub), 'Too many documents created with this token.');
    }
    if (method === 'POST' && asidePath.test(url.pathname)) {
      refuseIfWaiting(this.asides.take(principal.sub), 'Too many asides sent with this token.');
    }
    if (method !== 'GET' || !longPollPath.test(url.pathname) || !isLongPoll(url)) return () => {};
    const waiting = this.polls.get(principal.sub) ?? 0;
    if (waiting >= this.limits.longPollsPerSubject) {
      throw rateLimited('Too many long polls waiting for this token.', 1);
    }
    this.polls.set(principal.sub, waiting + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.polls.get(principal.sub) ?? 1) - 1;
      if (left > 0) this.polls.set(principal.sub, left);
      else this.polls.delete(principal.sub);
    };
  }
}

const asidePath = /^\/api\/runs\/[^/]+\/asides$/;
const longPollPath = /^\/api\/agent\/runs(\/[^/]+\/asides)?$/;

function isLongPoll(url: URL): boolean {
  const wait = url.searchParams.get('wait');
  return wait !== null && wait !== '' && wait !== '0';
}

function refuseIfWaiting(retryAfter: number | null, message: string): void {
  if (retryAfter !== null) throw rateLimited(message, retryAfter);
}

function rateLimited(message: string, retryAfter: number): Rejection {
  return new Rejection(429, 'RATE_LIMITED', message, { retryAfter });
}
