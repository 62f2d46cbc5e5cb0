import { html } from 'lit';
import { LightElement } from './light-element.ts';
import { ContextConsumer, ContextProvider } from '@lit/context';
import { noAnnotationRights, type AnnotationRights, type Session } from './session.ts';
import { annotationRightsContext, annotationRightsOf, sessionContext, type SessionInfo } from './session-context.ts';
import { ConnectionController } from './connection-controller.ts';
import { PresenceController, ownColorEvent } from './presence-controller.ts';
import type { DocConnection } from './doc-connection.ts';
import { rememberDoc, renameRecentDoc } from './recent-docs.ts';
import type { TandemEditor } from './tandem-editor.ts';
import { YDocReader } from './ydoc-reader.ts';
import { readMeta } from '../shared/model/doc-layout.ts';
import type { Annotation, Author } from '../shared/notes/annotations.ts';
import {
  runInProgress,
  runInReview,
  runProgress,
  cancellableRun,
  sendBlocker,
  type AgentPresence,
} from './run-status.ts';
import type { RunRecord } from '../shared/protocol/run-record.ts';
import { readyInstructions } from './instruction-queue.ts';
import { RunAnnouncer } from './run-announcer.ts';
import { loadDocumentExtras, loadDocumentRecords } from './later-elements.ts';
import { registerServiceWorker } from './sw-register.ts';
import './tandem-editor.ts';
import './tandem-title.ts';
import './tandem-status.ts';
import { codeMissingText } from './tandem-update-notice.ts';
import { CodeMissingController, onDemand } from './code-on-demand.ts';
import './tandem-presence.ts';
import './tandem-refused.ts';
import './tandem-doc-menu.ts';


const loadPageView = onDemand(() => import('./page/tandem-page-view.ts'));
const loadShareDialog = onDemand(() => import('./tandem-share-dialog.ts'));
const loadVersionHistory = onDemand(() => import('./tandem-version-history.ts'));
/** One document: its title, connection state, who is here, the queue bar, and the editor. */
export class TandemDocView extends LightElement {
  static properties = { docId: {}, asideNotice: { state: true } };
  declare docId: string;
  /** A question of this person's that the run ended before answering (ASIDE8), until dismissed. */
  declare asideNotice: string | null;

  // First: the controllers below read the session when the element connects.
  private readonly sessionFrom = new ContextConsumer(this, { context: sessionContext, subscribe: true });
  private readonly link = new ConnectionController(this);
  private readonly rightsProvider = new ContextProvider(this, { context: annotationRightsContext, initialValue: noAnnotationRights });
  private readonly presence = new PresenceController(
    this,
    () => this.link.connection,
    (color) => this.dispatchEvent(new CustomEvent(ownColorEvent, { detail: color, bubbles: true })),
  );
  private readonly code = new CodeMissingController(this);
  // The records' code loads from here on (none until it arrives); the text does not wait for it.
  private readonly notes = new YDocReader<readonly Annotation[]>(
    this,
    () => this.link.connection?.notes.ydoc ?? null,
    loadDocumentRecords().then((records) => records.readNotes),
    [],
  );
  private readonly runs = new YDocReader<readonly RunRecord[]>(
    this,
    () => this.link.connection?.runs.ydoc ?? null,
    loadDocumentRecords().then((records) => records.readRuns),
    [],
  );
  // After `runs`, whose value it reads before each render.
  private readonly announcer = new RunAnnouncer(
    this,
    () => this.link.connection?.runs.ydoc ?? null,
    () => this.runs.value,
    () => this.session?.claims.sub ?? '',
  );
  private orphaned: ReadonlySet<string> = new Set();
  private rightsFor: { key: string; rights: AnnotationRights } | null = null;
  private author: Author | null = null;
  private remembered: DocConnection | null = null;
  private rememberedTitle = '';

  constructor() {
    super();
    this.asideNotice = null;
    this.docId = '';
  }

  get sessionInfo(): SessionInfo | null {
    return this.sessionFrom.value ?? null;
  }

  get session(): Session | null {
    return this.sessionInfo?.session ?? null;
  }

  render() {
    const connection = this.link.connection;
    if (!connection) return html``;
    if (connection.refused) return html`<tandem-refused .refusal=${connection.refused}></tandem-refused>`;
    const { status, problem } = connection;
    const neverLoaded = connection.localLoaded && !connection.serverLoaded && connection.isEmpty && status === 'Offline';
    return html`<header class="doc-header">
        <a class="back-link" href="/">All documents</a>
        <tandem-status .status=${status}></tandem-status>
        <tandem-presence .peers=${this.presence.peers}></tandem-presence>
        <tandem-doc-menu
          .docId=${connection.docId}
          .docTitle=${connection.title || connection.firstLine}
          .canImport=${!connection.readOnly && !isPage(connection)}
        ></tandem-doc-menu>
        ${isPage(connection) ? '' : this.renderVersionHistory(connection)} ${this.renderShare(connection)}
      </header>
      ${this.renderQueueBar(connection)}
      <main class="doc-main">
        ${connection.outdated || connection.unreadable !== null
          ? html`<tandem-update-notice .beforeReload=${() => connection.whenSavedLocally()}></tandem-update-notice>`
          : this.code.missing
            ? html`<tandem-update-notice
                .text=${codeMissingText}
                .beforeReload=${() => connection.whenSavedLocally()}
              ></tandem-update-notice>`
            : ''}
        ${problem ? html`<p class="message error" role="alert">${problem}</p>` : ''}
        ${neverLoaded
          ? html`<p class="message">This document has not been opened on this device before. It will appear
              when the server can be reached.</p>`
          : ''}
        ${problem && connection.isEmpty ? '' : isPage(connection) ? this.renderPage(connection) : this.renderText(connection)}
      </main>`;
  }

  /** `Share` for those who may share (editors, INV1); its code loads when it is first shown. */
  private renderShare(connection: DocConnection) {
    if (!this.sessionInfo?.may('share-doc')) return '';
    void loadShareDialog();
    return html`<tandem-share-dialog .docId=${connection.docId}></tandem-share-dialog>`;
  }

  /** `Version history` of a text document (HIST6); its code loads when it is first shown. */
  private renderVersionHistory(connection: DocConnection) {
    void loadVersionHistory();
    return html`<tandem-version-history
      .docId=${connection.docId}
      .canEdit=${!connection.readOnly}
      .blocker=${connection.status === 'Offline'
        ? 'Naming and restoring need a connection'
        : connection.status === 'Syncing'
          ? 'Saving to the server…'
          : null}
    ></tandem-version-history>`;
  }

  private renderText(connection: DocConnection) {
    const { title, readOnly } = connection;
    this.rightsProvider.setValue(this.rights(connection));
    return html`<tandem-title
        .value=${title}
        .firstLine=${connection.firstLine}
        .readOnly=${readOnly}
        @title-change=${(event: CustomEvent<string>) => connection.setTitle(event.detail)}
        @title-done=${() => this.querySelector<TandemEditor>('tandem-editor')?.focusText()}
      ></tandem-title>
      <tandem-editor
        .connection=${connection}
        .readOnly=${readOnly}
        .annotations=${this.notes.value}
        .author=${this.currentAuthor()}
        .runs=${this.runs.value}
        .review=${runInReview(this.runs.value)}
        .decideBlocker=${connection.status === 'Offline' ? 'Accepting or discarding needs a connection' : null}
        @annotations-orphaned=${this.onOrphaned}
      ></tandem-editor>`;
  }

  /** A page (PAGE9), drawn by client/page/, loaded the first time a page is shown. */
  private renderPage(connection: DocConnection) {
    void loadPageView();
    const rights = this.rights(connection);
    this.rightsProvider.setValue(rights);
    return html`<tandem-page-view
      .connection=${connection}
      .annotations=${this.notes.value}
      .author=${this.currentAuthor()}
      .rights=${rights}
      .review=${runInReview(this.runs.value)}
      .decideBlocker=${connection.status === 'Offline' ? 'Accepting or discarding needs a connection' : null}
    ></tandem-page-view>`;
  }

  private renderQueueBar(connection: DocConnection) {
    const session = this.session;
    if (!session) return '';
    const runs = this.runs.value;
    const blocker = sendBlocker(runs) ?? this.connectionBlocker(connection);
    return html`<tandem-queue-bar
      .docId=${connection.docId}
      .ready=${readyInstructions(this.notes.value)}
      .orphaned=${this.orphaned}
      .textYdoc=${isPage(connection) ? null : connection.ydoc}
      .blocker=${blocker}
      .canSend=${this.rights(connection).manageInstructions}
      .progress=${runProgress(runInProgress(runs), this.agents())}
      .cancellable=${cancellableRun(runs)?.runId ?? null}
    ></tandem-queue-bar>${this.renderAsideBox(runs)}`;
  }

  /** Asides of the run an agent works on (ASIDE1): everyone reads them, editors and commenters ask. */
  private renderAsideBox(runs: readonly RunRecord[]) {
    const run = runInProgress(runs);
    const notice = this.asideNotice
      ? html`<p class="aside-notice message" role="status">
          ${this.asideNotice} <button type="button" @click=${() => (this.asideNotice = null)}>Dismiss</button>
        </p>`
      : '';
    if (run?.state !== 'claimed') return notice;
    // A callback, not an event: the box is gone from the page by the time the run's end answers its question.
    return html`${notice}<tandem-aside-box
      .runId=${run.runId}
      .runsDoc=${this.link.connection?.runs.ydoc ?? null}
      .canAsk=${!!this.sessionInfo?.may('aside')}
      .unanswered=${(text: string) => (this.asideNotice = text)}
    ></tandem-aside-box>`;
  }

  /** Why sending cannot go now for the connection's sake, or null. */
  private connectionBlocker(connection: DocConnection): string | null {
    if (connection.status === 'Offline') return 'Sending needs a connection';
    return connection.status === 'Syncing' ? 'Saving to the server…' : null;
  }

  /** The agents present in the document, as awareness tells. */
  private agents(): AgentPresence[] {
    return this.presence.peers.filter((peer) => peer.role === 'agent').map(({ name, status }) => ({ name, status }));
  }

  /** The person's rights over annotations; none while the server keeps the notes read-only. */
  private rights(connection: DocConnection): AnnotationRights {
    const info = this.sessionInfo;
    const key = `${info?.token}:${connection.notes.readOnly}`;
    if (this.rightsFor?.key !== key) {
      this.rightsFor = { key, rights: info && !connection.notes.readOnly ? annotationRightsOf(info) : noAnnotationRights };
    }
    return this.rightsFor.rights;
  }

  /**
   * This person as an annotation's author: the token's id and name, never the name picked on this
   * device, which is for presence only (the server refuses notes under any other name, NOTES9).
   * The same object while the token stays.
   */
  private currentAuthor(): Author | null {
    const claims = this.session?.claims;
    if (!claims) return null;
    if (this.author?.id !== claims.sub || this.author.name !== claims.name) this.author = { id: claims.sub, name: claims.name };
    return this.author;
  }

  private onOrphaned(event: CustomEvent<ReadonlySet<string>>) {
    this.orphaned = event.detail;
    this.requestUpdate();
  }

  /**
   * Keeps the page title and this device's list of recent documents up to date, tells tests
   * (`data-saved-locally`) whether every change so far is stored on this device, and once the
   * text is there loads the elements the page shows besides it (client/later-elements.ts) and
   * registers the service worker: neither competes with the text's arrival.
   */
  protected updated(): void {
    const connection = this.link.connection;
    const title = (connection?.title || connection?.firstLine) ?? '';
    document.title = `${title || 'Untitled'} · Tandem`;
    this.dataset.savedLocally = String(!!connection?.savedLocally);
    if (!connection) return;
    // Only a document that really loaded goes on the list (not a mistyped or refused id).
    const loaded = connection.serverLoaded || (connection.localLoaded && !connection.isEmpty);
    if (loaded) loadDocumentExtras();
    if (loaded || connection.problem) registerServiceWorker();
    if (loaded && this.remembered !== connection) {
      this.remembered = connection;
      this.rememberedTitle = title;
      void rememberDoc(connection.docId, title || undefined);
    } else if (this.remembered === connection && title !== this.rememberedTitle) {
      this.rememberedTitle = title;
      void renameRecentDoc(connection.docId, title);
    }
  }
}

function isPage(connection: DocConnection): boolean {
  return readMeta(connection.ydoc).kind === 'page';
}

customElements.define('tandem-doc-view', TandemDocView);
