import * as Y from 'yjs';
import { IndexeddbPersistence } from 'y-indexeddb';
import { HocuspocusProvider, HocuspocusProviderWebsocket, WebSocketStatus } from '@hocuspocus/provider';
import { docName, docParts, readMeta } from '../shared/doc-layout.ts';

/** The words of the connection indicator; tests and people read exactly these. */
export type ConnectionStatus = 'Connected' | 'Syncing' | 'Offline';

export interface DocConnectionOptions {
  docId: string;
  token: string;
  /** False for roles that may not change the text: the view is then read-only from the start. */
  canEdit: boolean;
  /** Defaults to `ws(s)://<this host>/collab`. */
  url?: string;
}

export function collabUrl(): string {
  const url = new URL('/collab', location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

/**
 * One document's text Y.Doc, kept in IndexedDB and synced with the server. Local first: the
 * copy on this device loads whether or not the server answers, edits are stored at once, and
 * the provider keeps retrying so that edits merge when the server is back.
 *
 * Dispatches `change` whenever `status`, `readOnly`, `localLoaded`, `serverLoaded`,
 * `savedLocally`, `title` or `problem` changes.
 */
export class DocConnection extends EventTarget {
  readonly docId: string;
  readonly ydoc = new Y.Doc();
  readonly local: IndexeddbPersistence;
  readonly socket: HocuspocusProviderWebsocket;
  readonly provider: HocuspocusProvider;

  status: ConnectionStatus = 'Offline';
  /** True once the copy in IndexedDB has been read into `ydoc` (it may be empty). */
  localLoaded = false;
  /** True once the server has sent its state at least once during this visit. */
  serverLoaded = false;
  readOnly: boolean;
  /** A refusal from the server, in words; null while none. */
  problem: string | null = null;
  title = '';

  private readonly roleReadOnly: boolean;
  private destroyed = false;
  private localWrites = 0;

  constructor(options: DocConnectionOptions) {
    super();
    this.docId = options.docId;
    this.roleReadOnly = !options.canEdit;
    this.readOnly = this.roleReadOnly;

    this.local = new IndexeddbPersistence('tandem:' + options.docId, this.ydoc);
    this.local.whenSynced.then(() => this.afterLocalWrites(() => {
      this.localLoaded = true;
      this.changed();
    }));

    // Retries stay frequent (at most 5 s apart) so that a returning server is noticed soon.
    this.socket = new HocuspocusProviderWebsocket({ url: options.url ?? collabUrl(), maxDelay: 5000 });
    this.provider = new HocuspocusProvider({
      websocketProvider: this.socket,
      name: docName(options.docId),
      document: this.ydoc,
      token: options.token,
    });
    this.provider.on('status', this.refresh);
    this.provider.on('synced', this.onSynced);
    this.provider.on('unsyncedChanges', this.refresh);
    this.provider.on('close', this.refresh);
    this.provider.on('authenticated', this.onAuthenticated);
    this.provider.on('authenticationFailed', this.onAuthenticationFailed);
    this.provider.attach();
    docParts(this.ydoc).meta.observe(this.onMeta);
    // Registered after y-indexeddb's own update handler, so it runs after that queued its write.
    this.ydoc.on('update', this.onUpdate);
    this.refresh();
  }

  /** True when every change made so far is stored in IndexedDB (reloading now loses nothing). */
  get savedLocally(): boolean {
    return this.localLoaded && this.localWrites === 0;
  }

  /** Whether the text holds nothing yet (a new document, or one never loaded on this device). */
  get isEmpty(): boolean {
    return docParts(this.ydoc).content.length === 0;
  }

  setTitle(title: string): void {
    if (this.readOnly || title === this.title) return;
    this.ydoc.transact(() => docParts(this.ydoc).meta.set('title', title), this);
  }

  get awareness() {
    return this.provider.awareness!;
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    docParts(this.ydoc).meta.unobserve(this.onMeta);
    this.ydoc.off('update', this.onUpdate);
    this.provider.destroy();
    this.socket.destroy();
    // The last updates are already queued in IndexedDB transactions; closing lets them finish.
    void this.local.destroy();
    this.ydoc.destroy();
  }

  /**
   * y-indexeddb gives no signal when a write lands (`whenSynced` even fires before its first
   * write of the loaded state has committed). A read transaction over the same store,
   * opened after the write, completes after it (IndexedDB orders overlapping transactions).
   */
  private readonly onUpdate = (_update: Uint8Array, origin: unknown) => {
    if (!this.local.db || origin === this.local || this.destroyed) return;
    if (this.localWrites++ === 0) this.changed();
    this.afterLocalWrites(() => {
      if (--this.localWrites === 0) this.changed();
    });
  };

  private afterLocalWrites(then: () => void): void {
    const db = this.local.db;
    if (!db || this.destroyed) return;
    const tx = db.transaction(['updates'], 'readonly');
    tx.oncomplete = then;
    tx.onabort = then;
  }

  private readonly onMeta = () => {
    const title = readMeta(this.ydoc).title;
    if (title === this.title) return;
    this.title = title;
    this.changed();
  };

  private readonly onSynced = () => {
    this.serverLoaded = true;
    this.refresh();
  };

  private readonly onAuthenticated = ({ scope }: { scope: string }) => {
    this.problem = null;
    this.readOnly = this.roleReadOnly || scope === 'readonly';
    this.refresh();
  };

  private readonly onAuthenticationFailed = ({ reason }: { reason: string }) => {
    this.problem = `The server refused access to this document (${reason || 'permission denied'}).`;
    this.refresh();
  };

  private readonly refresh = () => {
    if (this.destroyed) return;
    this.status = this.computeStatus();
    this.changed();
  };

  private computeStatus(): ConnectionStatus {
    if (this.socket.status !== WebSocketStatus.Connected || this.problem) return 'Offline';
    if (!this.provider.isAuthenticated || !this.provider.synced) return 'Syncing';
    // A read-only connection's own stray updates are refused and never acknowledged.
    if (!this.readOnly && this.provider.hasUnsyncedChanges) return 'Syncing';
    return 'Connected';
  }

  private changed(): void {
    if (!this.destroyed) this.dispatchEvent(new Event('change'));
  }
}
