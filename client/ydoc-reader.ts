import type * as Y from 'yjs';
import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * Keeps `value`, a reading of a Y.Doc, current for its host: read again on every update of the
 * doc (local, remote or from IndexedDB), and when `source` names another doc. The host
 * re-renders after each new reading. `read` may be a promise of the reading function (code
 * loaded on demand): `value` stays `empty` until it resolves, then the doc is read.
 */
export class YDocReader<T> implements ReactiveController {
  value: T;
  private ydoc: Y.Doc | null = null;
  private read: ((ydoc: Y.Doc) => T) | null = null;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly source: () => Y.Doc | null,
    read: ((ydoc: Y.Doc) => T) | Promise<(ydoc: Y.Doc) => T>,
    private readonly empty: T,
  ) {
    this.value = empty;
    host.addController(this);
    if (typeof read === 'function') this.read = read;
    else
      void read.then((loaded) => {
        this.read = loaded;
        this.onUpdate();
      });
  }

  hostUpdate(): void {
    const ydoc = this.source();
    if (ydoc === this.ydoc) return;
    this.ydoc?.off('update', this.onUpdate);
    this.ydoc = ydoc;
    ydoc?.on('update', this.onUpdate);
    this.value = ydoc && this.read ? this.read(ydoc) : this.empty;
  }

  hostDisconnected(): void {
    this.ydoc?.off('update', this.onUpdate);
    this.ydoc = null;
    this.value = this.empty;
  }

  private readonly onUpdate = () => {
    if (!this.ydoc || !this.read) return;
    this.value = this.read(this.ydoc);
    this.host.requestUpdate();
  };
}
