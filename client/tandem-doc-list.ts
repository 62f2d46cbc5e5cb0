import { html } from 'lit';
import { onDemand } from './code-on-demand.ts';
import { LightElement } from './light-element.ts';
import { ContextConsumer } from '@lit/context';
import { Task, TaskStatus, initialState } from '@lit/task';
import { createDoc, duplicateDoc, restoreDoc, trashDoc } from './api.ts';
import { rememberDoc } from './recent-docs.ts';
import { docPath, navigate } from './router.ts';
import { sessionContext } from './session-context.ts';
import { describeListError, docRestoredEvent, loadDocListing, type ListedDoc } from './doc-listing.ts';

const loadNewPage = onDemand(() => import('./page/tandem-new-page.ts'));
const loadTrash = onDemand(() => import('./tandem-trash.ts'));

/** How long the search waits after the last keystroke before it asks the server. */
const searchDelayMs = 200;

/**
 * The documents of this server, or, when it cannot be reached, the ones opened on this device;
 * a search box (CAT2), and per document `Duplicate` (CAT4) and, for editors, `Delete` to the
 * trash with an `Undo` (CAT3). A person's name is their token's, as the server says it (INV4).
 */
export class TandemDocList extends LightElement {
  static properties = { newPage: { state: true }, showTrash: { state: true }, trashVersion: { state: true }, query: { state: true }, trashed: { state: true }, actionError: { state: true } };
  declare newPage: boolean;
  /** Whether the trash is shown (editors). */
  declare showTrash: boolean;
  /** Counts the list's own deletes and undos, for the trash to read itself again. */
  declare trashVersion: number;
  /** The search as last sent to the server ('' lists everything). */
  declare query: string;
  /** The document just moved to the trash, while its Undo is offered. */
  declare trashed: ListedDoc | null;
  declare actionError: string;

  private readonly sessionFrom = new ContextConsumer(this, { context: sessionContext, subscribe: true });
  private searchTimer: ReturnType<typeof setTimeout> | undefined;

  /** Loads the list when the element first renders, and again if the token or the search changes. */
  private readonly listing = new Task(this, {
    task: ([token, query]) => (token ? loadDocListing(token, query) : initialState),
    args: () => [this.sessionFrom.value?.token ?? '', this.query] as const,
  });

  /** Creates a document and opens it; run by `New document`. Its title follows its first line (CAT1). */
  private readonly creating = new Task(this, {
    autoRun: false,
    task: async ([token]: readonly [string]) => {
      const doc = await createDoc(token, '');
      await rememberDoc(doc.id, doc.title);
      navigate(docPath(doc.id));
    },
  });

  constructor() {
    super();
    this.newPage = false;
    this.showTrash = false;
    this.trashVersion = 0;
    this.query = '';
    this.trashed = null;
    this.actionError = '';
  }

  /** Shows or hides the form of a new page (client/page/, loaded when first asked for). */
  private toggleNewPage() {
    this.newPage = !this.newPage;
    if (this.newPage) void loadNewPage();
  }

  /** Shows or hides the trash (its code loads when first asked for). */
  private toggleTrash() {
    this.showTrash = !this.showTrash;
    if (this.showTrash) void loadTrash();
  }

  connectedCallback(): void {
    super.connectedCallback();
    document.title = 'Documents · Tandem';
    // A document restored from the trash is listed again.
    this.addEventListener(docRestoredEvent, () => void this.listing.run());
  }

  disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.searchTimer);
  }

  /** The message to show: a failed create or action, else why the list was refused (a create under way hides it). */
  private get error(): string {
    if (this.creating.status === TaskStatus.ERROR) return `The document could not be created: ${describeListError(this.creating.error)}`;
    if (this.creating.status === TaskStatus.PENDING) return '';
    return this.actionError || (this.listing.value?.error ?? '');
  }

  render() {
    const canCreate = !!this.sessionFrom.value?.may('create-doc');
    const offline = !!this.listing.value?.offline;
    const canTrash = !offline && !!this.sessionFrom.value?.may('trash-doc');
    return html`<main class="list-main">
      <div class="list-head">
        <h1>Documents</h1>
        ${canCreate
          ? html`<button type="button" class="primary" ?disabled=${this.creating.status === TaskStatus.PENDING} @click=${this.create}
              >New document</button
            >
            <button type="button" aria-expanded=${this.newPage} @click=${this.toggleNewPage}>New page</button>`
          : ''}
        ${canTrash ? html`<button type="button" aria-expanded=${this.showTrash} @click=${this.toggleTrash}>Trash</button>` : ''}
      </div>
      <input class="doc-search" type="search" aria-label="Search documents" placeholder="Search documents" autocomplete="off" @input=${this.onSearch} />
      ${canCreate && this.newPage ? html`<tandem-new-page @new-page-cancel=${this.toggleNewPage}></tandem-new-page>` : ''}
      ${this.error ? html`<p class="message error" role="alert">${this.error}</p>` : ''}
      ${offline ? html`<p class="message">The server cannot be reached. These are the documents opened on this device.</p>` : ''}
      ${this.renderTrashed()} ${this.renderDocs()} ${canTrash && this.showTrash ? html`<tandem-trash .version=${this.trashVersion}></tandem-trash>` : ''}
    </main>`;
  }

  private renderDocs() {
    const listing = this.listing.value;
    if (!listing) return html`<p class="muted">Loading…</p>`;
    if (listing.docs.length === 0) {
      if (this.error) return '';
      if (this.query.trim()) return html`<p class="muted">No document matches “${this.query.trim()}”.</p>`;
      return html`<p class="muted">${listing.offline ? 'No document has been opened on this device yet.' : 'No documents yet.'}</p>`;
    }
    const canCreate = !listing.offline && !!this.sessionFrom.value?.may('create-doc');
    const canTrash = !listing.offline && !!this.sessionFrom.value?.may('trash-doc');
    return html`<ul class="doc-list" aria-label="Documents">
      ${listing.docs.map(
        (doc) => html`<li>
          <a href=${docPath(doc.id)}>${doc.title || 'Untitled'}</a>
          ${doc.when ? html`<time class="muted" datetime=${new Date(doc.when).toISOString()}>${formatWhen(doc.when)}</time>` : ''}
          <span class="doc-actions">
            ${canCreate ? html`<button type="button" class="link-button" @click=${() => this.duplicate(doc)}>Duplicate</button>` : ''}
            ${canTrash ? html`<button type="button" class="link-button" @click=${() => this.trash(doc)}>Delete</button>` : ''}
          </span>
        </li>`,
      )}
    </ul>`;
  }

  /** The toast of the last Delete, with its Undo (CAT3: the document stays restorable for 30 days). */
  private renderTrashed() {
    if (!this.trashed) return '';
    return html`<p class="message toast" role="status">
      “${this.trashed.title || 'Untitled'}” was moved to the trash.
      <button type="button" @click=${this.undoTrash}>Undo</button>
    </p>`;
  }

  private create() {
    const token = this.sessionFrom.value?.token;
    if (!token || this.creating.status === TaskStatus.PENDING) return;
    void this.creating.run([token]);
  }

  private onSearch(event: InputEvent) {
    const value = (event.target as HTMLInputElement).value;
    clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => (this.query = value), searchDelayMs);
  }

  /** Runs one of the list's actions, then reads the list again; a failure shows in the page. */
  private async act(action: (token: string) => Promise<unknown>): Promise<boolean> {
    const token = this.sessionFrom.value?.token;
    if (!token) return false;
    this.actionError = '';
    try {
      await action(token);
      return true;
    } catch (error) {
      this.actionError = describeListError(error);
      return false;
    } finally {
      void this.listing.run();
    }
  }

  private async trash(doc: ListedDoc) {
    if (await this.act((token) => trashDoc(token, doc.id))) this.trashed = doc;
    this.trashVersion += 1;
  }

  private async undoTrash() {
    const doc = this.trashed;
    if (!doc) return;
    this.trashed = null;
    await this.act((token) => restoreDoc(token, doc.id));
    this.trashVersion += 1;
  }

  private async duplicate(doc: ListedDoc) {
    await this.act((token) => duplicateDoc(token, doc.id));
  }
}

function formatWhen(when: number): string {
  return new Date(when).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

customElements.define('tandem-doc-list', TandemDocList);
