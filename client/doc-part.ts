import * as Y from 'yjs';
import { IndexeddbPersistence } from 'y-indexeddb';
import { HocuspocusProvider, type HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import { refusalOfReason, refusalWords, type TokenRefusal } from './token-refusal.ts';

export interface DocPartOptions {
  /** The socket every part of a document shares (Hocuspocus multiplexes documents over it). */
  socket: HocuspocusProviderWebsocket;
  /** The Hocuspocus document name (`docName(id, part)`). */
  name: string;
  token: string;
  /** False when this person's role may not change this part: it is read-only from the start. */
  canWrite: boolean;
  /** Keep a copy in IndexedDB under this database name; null keeps nothing on the device. */
  localName: string | null;
  /** Publish presence through this part (one part per socket should, for Hocuspocus' pings). */
  withAwareness: boolean;
}

/**
 * One Y.Doc of a document (its text, notes or runs), kept in IndexedDB when asked and synced
 * with the server over the shared socket. Dispatches `change` whenever `localLoaded`,
 * `serverLoaded`, `readOnly`, `problem`, `savedLocally` or the sync state changes.
 */
export class DocPart extends EventTarget {
  readonly ydoc = new Y.Doc();
  readonly local: IndexeddbPersistence | null;
  readonly provider: HocuspocusProvider;

  /** True once the copy in IndexedDB has been read into `ydoc` (always, without a copy). */
  localLoaded: boolean;
  /** True once the server has sent its state at least once during this visit. */
  serverLoaded = false;
  readOnly: boolean;
  /** A refusal from the server, in words; null while none. */
  problem: string | null = null;
  /** Set when the server refused the token itself (TOKEN7): no retry can succeed. */
  refusal: TokenRefusal | null = null;

  private readonly roleReadOnly: boolean;
  private destroyed = false;
  private localWrites = 0;

  constructor(options: DocPartOptions) {
    super();
    this.roleReadOnly = !options.canWrite;
    this.readOnly = this.roleReadOnly;
    this.localLoaded = options.localName === null;

    this.local = options.localName === null ? null : new IndexeddbPersistence(options.localName, this.ydoc);
    void this.local?.whenSynced.then(() =>
      this.afterLocalWrites(() => {
        this.localLoaded = true;
        this.changed();
      }),
    );

    this.provider = new HocuspocusProvider({
      websocketProvider: options.socket,
      name: options.name,
      document: this.ydoc,
      token: options.token,
      ...(options.withAwareness ? {} : { awareness: null }),
    });
    this.provider.on('status', this.changed);
    this.provider.on('synced', this.onSynced);
    this.provider.on('unsyncedChanges', this.changed);
    this.provider.on('close', this.changed);
    this.provider.on('authenticated', this.onAuthenticated);
    this.provider.on('authenticationFailed', this.onAuthenticationFailed);
    this.provider.attach();
    // Registered after y-indexeddb's own update handler, so it runs after that queued its write.
    this.ydoc.on('update', this.onUpdate);
  }

  /** True when every change made so far is stored in IndexedDB (reloading now loses nothing). */
  get savedLocally(): boolean {
    return this.local === null || (this.localLoaded && this.localWrites === 0);
  }

  /** Authenticated and in step with the server, with nothing of ours waiting to be acknowledged. */
  get inStep(): boolean {
    if (!this.provider.isAuthenticated || !this.provider.synced) return false;
    // A read-only connection's own stray updates are refused and never acknowledged.
    return this.readOnly || !this.provider.hasUnsyncedChanges;
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.ydoc.off('update', this.onUpdate);
    this.provider.destroy();
    // The last updates are already queued in IndexedDB transactions; closing lets them finish.
    void this.local?.destroy();
    this.ydoc.destroy();
  }

  /**
   * y-indexeddb gives no signal when a write lands (`whenSynced` even fires before its first
   * write of the loaded state has committed). A read transaction over the same store,
   * opened after the write, completes after it (IndexedDB orders overlapping transactions).
   */
  private readonly onUpdate = (_update: Uint8Array, origin: unknown) => {
    if (!this.local?.db || origin === this.local || this.destroyed) return;
    if (this.localWrites++ === 0) this.changed();
    this.afterLocalWrites(() => {
      if (--this.localWrites === 0) this.changed();
    });
  };

  private afterLocalWrites(then: () => void): void {
    const db = this.local?.db;
    if (!db || this.destroyed) return;
    const tx = db.transaction(['updates'], 'readonly');
    tx.oncomplete = then;
    tx.onabort = then;
  }

  private readonly onSynced = () => {
    this.serverLoaded = true;
    this.changed();
  };

  private readonly onAuthenticated = ({ scope }: { scope: string }) => {
    this.problem = null;
    this.readOnly = this.roleReadOnly || scope === 'readonly';
    this.changed();
  };

  private readonly onAuthenticationFailed = ({ reason }: { reason: string }) => {
    this.refusal = refusalOfReason(reason);
    this.problem = this.refusal
      ? refusalWords[this.refusal].happened
      : `The server refused access to this document (${reason || 'permission denied'}).`;
    this.changed();
  };

  private readonly changed = () => {
    if (!this.destroyed) this.dispatchEvent(new Event('change'));
  };
}
