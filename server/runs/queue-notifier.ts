/**
 * Wakes long polls for queued runs (`GET /api/agent/runs?wait=S`). `notify()` when a run may
 * have been queued. A poll reads `version` before it looks at the store, then calls
 * `wait(version, …)`, which resolves at once if a notify came in between (so none is missed),
 * else on the next notify, after `ms`, when `signal` aborts or when the notifier closes
 * (server shutdown), whichever comes first.
 */
export class QueueNotifier {
  private readonly waiters = new Set<() => void>();
  private closedFlag = false;
  private notified = 0;

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Changes with every notify. */
  get version(): number {
    return this.notified;
  }

  notify(): void {
    this.notified++;
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  wait(seen: number, ms: number, signal?: AbortSignal): Promise<void> {
    if (this.closedFlag || signal?.aborted || seen !== this.notified) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done);
      this.waiters.add(done);
    });
  }

  /** Answers every waiting poll now and every later one at once. */
  close(): void {
    this.closedFlag = true;
    this.notify();
  }
}
