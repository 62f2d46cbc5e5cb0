import type * as Y from 'yjs';
import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * Keeps `value`, a reading of a Y.Doc, current for its host: read again on every update of the
 * doc (local, remote or from IndexedDB), and when `source` names another doc. The host
 * re-renders after each new reading.
 */
export class YDocReader<T> implements ReactiveController {
  value: T;
  private ydoc: Y.Doc | null = null;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly source: () => Y.Doc | null,
    private readonly read: (ydoc: Y.Doc) => T,
    private readonly empty: T,
  ) {
    this.value = empty;
    host.addController(this);
  }

  hostUpdate(): void {
    const ydoc = this.source();
    if (ydoc === this.ydoc) return;
    this.ydoc?.off('update', this.onUpdate);
    this.ydoc = ydoc;
    ydoc?.on('update', this.onUpdate);
    this.value = ydoc ? this.read(ydoc) : this.empty;
  }

  hostDisconnected(): void {
    this.ydoc?.off('update', this.onUpdate);
    this.ydoc = null;
    this.value = this.empty;
  }

  private readonly onUpdate = () => {
    if (!this.ydoc) return;
    this.value = this.read(this.ydoc);
    this.host.requestUpdate();
  };
}
