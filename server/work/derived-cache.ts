import { createHash } from 'node:crypto';

/**
 * What was derived from one version of a document (its page view, its blocks, its Markdown),
 * kept so that reads of an unchanged document do not pay for it again (LIMIT10). Keyed by what
 * it was derived from: the SHA-256 of the input, or a live document's version
 * (`liveVersion`). Keeps the `capacity` most recently used entries; a refusal is kept like a
 * value, so the same bad input is refused without being read again. A failure is not kept.
 */
export class DerivedCache {
  private readonly entries = new Map<string, Promise<unknown>>();

  constructor(private readonly capacity: number) {}

  get<T>(key: string, derive: () => Promise<T>): Promise<T> {
    const kept = this.entries.get(key);
    if (kept) {
      this.entries.delete(key);
      this.entries.set(key, kept);
      return kept as Promise<T>;
    }
    const made = derive();
    this.entries.set(key, made);
    made.catch((error: unknown) => {
      if (!(error instanceof Error && error.name === 'Rejection')) this.entries.delete(key);
    });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.capacity) break;
      this.entries.delete(oldest);
    }
    return made;
  }
}

export function sha256(input: string | Uint8Array): string {
  return createHash('sha256').update(input).digest('base64url');
}

const versions = new WeakMap<object, { id: number; version: number }>();
let nextDoc = 1;

/**
 * A key for the current version of a live Y.Doc, without reading its content: a number for the
 * Y.Doc object and a count of its updates since first asked, counted by an `update` listener.
 */
export function liveVersion(ydoc: { on(event: 'update', listener: () => void): void }): string {
  let entry = versions.get(ydoc);
  if (!entry) {
    const made = { id: nextDoc++, version: 0 };
    ydoc.on('update', () => made.version++);
    versions.set(ydoc, made);
    entry = made;
  }
  return `live:${entry.id}:${entry.version}`;
}
