/**
 * One-at-a-time sections per key (a run id): every step that reads a run, changes its text and
 * records the change (a batch, a takeback, a review) runs alone for that run in this process,
 * so a lease cannot run out halfway through a batch and a replayed key cannot apply twice.
 * Across processes the store's conditional transitions decide.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, section: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.catch(() => {}).then(section);
    const tail = result.catch(() => {});
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
