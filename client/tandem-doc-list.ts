import { html } from 'lit';
import { LightElement } from './light-element.ts';
import { ContextConsumer } from '@lit/context';
import { Task, TaskStatus, initialState } from '@lit/task';
import { createDoc } from './api.ts';
import { rememberDoc } from './recent-docs.ts';
import { docPath, navigate } from './router.ts';
import { sessionContext } from './session-context.ts';
import { describeListError, loadDocListing } from './doc-listing.ts';

/**
 * The documents of this server, or, when it cannot be reached, the ones opened on this device.
 * Fires `name-change` (detail: the new name) when the person renames themselves.
 */
export class TandemDocList extends LightElement {
  static properties = { newPage: { state: true } };
  declare newPage: boolean;

  private readonly sessionFrom = new ContextConsumer(this, { context: sessionContext, subscribe: true });

  /** Loads the list when the element first renders, and again if the token changes. */
  private readonly listing = new Task(this, {
    task: ([token]) => (token ? loadDocListing(token) : initialState),
    args: () => [this.sessionFrom.value?.token ?? ''] as const,
  });

  /** Creates a document and opens it; run by `New document`. */
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
  }

  /** Shows or hides the form of a new page (client/page/, loaded when first asked for). */
  private toggleNewPage() {
    this.newPage = !this.newPage;
    if (this.newPage) void import('./page/tandem-new-page.ts');
  }

  connectedCallback(): void {
    super.connectedCallback();
    document.title = 'Documents · Tandem';
  }

  /** The message to show: a failed create, else why the list was refused (a create under way hides it). */
  private get error(): string {
    if (this.creating.status === TaskStatus.ERROR) return `The document could not be created: ${describeListError(this.creating.error)}`;
    if (this.creating.status === TaskStatus.PENDING) return '';
    return this.listing.value?.error ?? '';
  }

  render() {
    const canCreate = !!this.sessionFrom.value?.may('create-doc');
    const offline = !!this.listing.value?.offline;
    return html`<main class="list-main">
      <div class="list-head">
        <h1>Documents</h1>
        ${canCreate
          ? html`<button type="button" class="primary" ?disabled=${this.creating.status === TaskStatus.PENDING} @click=${this.create}
              >New document</button
            >
            <button type="button" aria-expanded=${this.newPage} @click=${this.toggleNewPage}>New page</button>`
          : ''}
      </div>
      ${canCreate && this.newPage ? html`<tandem-new-page @new-page-cancel=${this.toggleNewPage}></tandem-new-page>` : ''}
      ${this.error ? html`<p class="message error" role="alert">${this.error}</p>` : ''}
      ${offline ? html`<p class="message">The server cannot be reached. These are the documents opened on this device.</p>` : ''}
      ${this.renderDocs()} ${this.renderName()}
    </main>`;
  }

  private renderDocs() {
    const listing = this.listing.value;
    if (!listing) return html`<p class="muted">Loading…</p>`;
    if (listing.docs.length === 0) {
      if (this.error) return '';
      return html`<p class="muted">${listing.offline ? 'No document has been opened on this device yet.' : 'No documents yet.'}</p>`;
    }
    return html`<ul class="doc-list" aria-label="Documents">
      ${listing.docs.map(
        (doc) => html`<li>
          <a href=${docPath(doc.id)}>${doc.title || 'Untitled'}</a>
          ${doc.when ? html`<time class="muted" datetime=${new Date(doc.when).toISOString()}>${formatWhen(doc.when)}</time>` : ''}
        </li>`,
      )}
    </ul>`;
  }

  private renderName() {
    const session = this.sessionFrom.value?.session;
    if (!session) return '';
    return html`<form class="name-form" @submit=${this.onName}>
      <label for="your-name">Your name</label>
      <input id="your-name" name="name" autocomplete="nickname" maxlength="60" .value=${session.name} />
      <button type="submit">Save name</button>
    </form>`;
  }

  private create() {
    const token = this.sessionFrom.value?.token;
    if (!token || this.creating.status === TaskStatus.PENDING) return;
    void this.creating.run([token]);
  }

  private onName(event: SubmitEvent) {
    event.preventDefault();
    const name = new FormData(event.target as HTMLFormElement).get('name');
    this.dispatchEvent(new CustomEvent('name-change', { detail: String(name ?? ''), bubbles: true, composed: true }));
  }
}

function formatWhen(when: number): string {
  return new Date(when).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

customElements.define('tandem-doc-list', TandemDocList);
