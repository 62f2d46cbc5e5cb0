/**
 * A part that is built after a part that uses it. Hocuspocus's extensions are fixed when it is
 * built, yet the run services they call need Hocuspocus: the extension holds this slot and reads
 * it when called, and the composition root fills it once, before the server listens.
 */
export class LateBound<T> {
  private value: T | undefined;

  constructor(private readonly what: string) {}

  fill(value: T): void {
    if (this.value !== undefined) throw new Error(`${this.what} is already set.`);
    this.value = value;
  }

  get(): T {
    if (this.value === undefined) throw new Error(`${this.what} is used before it is set.`);
    return this.value;
  }
}
