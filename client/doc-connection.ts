import type * as Y from 'yjs';
import type { Awareness } from 'y-protocols/awareness';
import { HocuspocusProviderWebsocket, WebSocketStatus, type HocuspocusProvider } from '@hocuspocus/provider';
import { docName, docParts } from '../shared/model/doc-layout.ts';
import { firstLineOf, setTitleOf } from '../shared/model/doc-title.ts';
import { DocPart } from './doc-part.ts';
import { protocolOutdated, withProtocolVersion } from '../shared/protocol/protocol-version.ts';
import { refusalOfClose, type TokenRefusal } from './token-refusal.ts';

/** The words of the connection indicator; tests and people read exactly these. */
export type ConnectionStatus = 'Connected' | 'Syncing' | 'Offline';

export interface DocConnectionOptions {
  docId: string;
  token: string;
  /** False for roles that may not change the text: the view is then read-only from the start. */
  canEdit: boolean;
  /** False for roles that may not write annotations (viewers). */
  canWriteNotes: boolean;
  /** Defaults to `ws(s)://<this host>/collab`. */
  url?: string;
}

/** `ws(s)://<this host>/collab?protocol=<this build's version>` (VER2). */
export function collabUrl(): string {
  const url = new URL('/collab', location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return withProtocolVersion(url.href);
}

/**
 * One document's three Y.Docs — the text `<id>`, the annotations `<id>/notes` and the
 * server-written runs `<id>/runs` — over one shared WebSocket. Local first: the text and the
 * notes are kept in IndexedDB and load whether or not the server answers, changes are stored at
 * once, and the socket keeps retrying so that changes merge when the server is back.
 *
 * A server that no longer serves this build's protocol closes the socket with PROTOCOL_OUTDATED
 * (VER3): the connection then stops retrying and says `outdated`; edits go on being kept in
 * IndexedDB, and merge once the page is reloaded with the new build (VER4).
 *
 * A server that refuses the token itself (bad signature, expired, revoked, another document),
 * at authentication or by closing an open socket with 4401, gets no more handshakes either: the
 * connection stops and says `refused` (TOKEN7), since each retry would be refused the same way.
 *
 * Dispatches `change` whenever `status`, `readOnly`, `localLoaded`, `serverLoaded`,
 * `savedLocally`, `title`, `firstLine`, `outdated`, `refused`, `unreadable` or `problem`
 * changes, or any part's state does.
 */
export class DocConnection extends EventTarget {
  readonly docId: string;
  /** The token the parts connect with; the API's requests of this document (its images) send it too. */
  readonly token: string;
  readonly socket: HocuspocusProviderWebsocket;
  readonly text: DocPart;
  readonly notes: DocPart;
  readonly runs: DocPart;

  status: ConnectionStatus = 'Offline';
  /** The title someone set, '' while none is (CAT1). */
  title = '';
  /** True once the server refused this build as outdated (VER3). */
  outdated = false;
  /** Why the server refused this token, once it has (TOKEN7); null while it has not. */
  refused: TokenRefusal | null = null;
  /**
   * What the text holds that this build's schema cannot hold faithfully (VER7), once the editor
   * found some; null while none. The text is then read-only here: binding it would delete it.
   */
  unreadable: string | null = null;
  /** The text's first line, which names the document while no title is set (CAT1); '' while one is. */
  firstLine = '';

  private destroyed = false;

  constructor(options: DocConnectionOptions) {
    super();
    this.docId = options.docId;
    this.token = options.token;
    // Retries stay frequent (at most 5 s apart) so that a returning server is noticed soon.
    this.socket = new HocuspocusProviderWebsocket({ url: options.url ?? collabUrl(), maxDelay: 5000 });
    const part = (name: string, canWrite: boolean, localName: string | null, withAwareness = false) =>
      new DocPart({ socket: this.socket, name, token: options.token, canWrite, localName, withAwareness });
    this.text = part(docName(options.docId), options.canEdit, 'tandem:' + options.docId, true);
    this.notes = part(docName(options.docId, 'notes'), options.canWriteNotes, 'tandem:' + docName(options.docId, 'notes'));
    this.runs = part(docName(options.docId, 'runs'), false, null);
    for (const each of [this.text, this.notes, this.runs]) each.addEventListener('change', this.refresh);
    this.socket.on('status', this.refresh);
    this.socket.on('close', this.onClose);
    docParts(this.ydoc).meta.observe(this.onMeta);
    docParts(this.ydoc).content.observeDeep(this.onContent);
    this.refresh();
  }

  /** The text Y.Doc. */
  get ydoc(): Y.Doc {
    return this.text.ydoc;
  }

  get provider(): HocuspocusProvider {
    return this.text.provider;
  }

  get readOnly(): boolean {
    return this.text.readOnly || this.unreadable !== null;
  }

  /** Records that the text holds content newer than this build (VER7); the first reason stays. */
  holdsUnreadable(reason: string): void {
    if (this.unreadable !== null) return;
    this.unreadable = reason;
    this.changed();
  }

  get localLoaded(): boolean {
    return this.text.localLoaded;
  }

  get serverLoaded(): boolean {
    return this.text.serverLoaded;
  }

  get problem(): string | null {
    return this.text.problem;
  }

  /** True when every change made so far, to the text and to the notes, is stored in IndexedDB. */
  get savedLocally(): boolean {
    return this.text.savedLocally && this.notes.savedLocally;
  }

  /** Whether the text holds nothing yet (a new document, or one never loaded on this device). */
  get isEmpty(): boolean {
    return docParts(this.ydoc).content.length === 0;
  }

  /** Who is here: the text is always connected with presence. */
  get awareness(): Awareness {
    const { awareness } = this.provider;
    if (!awareness) throw new Error('The text connects with presence, so its provider has an awareness.');
    return awareness;
  }

  setTitle(title: string): void {
    if (this.readOnly || title === this.title) return;
    this.ydoc.transact(() => docParts(this.ydoc).meta.set('title', title), this);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    docParts(this.ydoc).meta.unobserve(this.onMeta);
    docParts(this.ydoc).content.unobserveDeep(this.onContent);
    this.socket.off('status', this.refresh);
    this.socket.off('close', this.onClose);
    for (const each of [this.text, this.notes, this.runs]) {
      each.removeEventListener('change', this.refresh);
      each.destroy();
    }
    this.socket.destroy();
  }

  /** Resolves once every change made so far is stored in IndexedDB (a reload then loses nothing). */
  whenSavedLocally(): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!this.savedLocally && !this.destroyed) return;
        this.removeEventListener('change', check);
        resolve();
      };
      this.addEventListener('change', check);
      check();
    });
  }

  /** VER3, TOKEN7: an outdated build or a refused token stops retrying, since every retry would be refused the same way. */
  private readonly onClose = ({ event }: { event: { code?: number; reason?: string } }) => {
    const refusal = refusalOfClose(event);
    if (refusal) return this.stopRefused(refusal);
    if (event.code !== protocolOutdated.code || event.reason !== protocolOutdated.reason) return;
    this.socket.disconnect();
    this.outdated = true;
    this.refresh();
  };

  private stopRefused(refusal: TokenRefusal): void {
    if (this.refused || this.destroyed) return;
    this.refused = refusal;
    this.socket.disconnect();
    this.refresh();
  }

  private readonly onMeta = () => {
    const title = setTitleOf(this.ydoc);
    if (title === this.title) return;
    this.title = title;
    this.onContent();
    this.changed();
  };

  /** The first line is read only while it names the document: a set title makes typing cost nothing here. */
  private readonly onContent = () => {
    const firstLine = this.title ? '' : firstLineOf(this.ydoc);
    if (firstLine === this.firstLine) return;
    this.firstLine = firstLine;
    this.changed();
  };

  private readonly refresh = () => {
    if (this.destroyed) return;
    const refusal = this.text.refusal ?? this.notes.refusal ?? this.runs.refusal;
    if (refusal && !this.refused) return this.stopRefused(refusal);
    this.status = this.computeStatus();
    this.changed();
  };

  private computeStatus(): ConnectionStatus {
    if (this.socket.status !== WebSocketStatus.Connected || this.problem) return 'Offline';
    return [this.text, this.notes, this.runs].every((each) => each.inStep) ? 'Connected' : 'Syncing';
  }

  private changed(): void {
    if (!this.destroyed) this.dispatchEvent(new Event('change'));
  }
}
