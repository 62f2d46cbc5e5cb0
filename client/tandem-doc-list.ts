import { LitElement, html } from 'lit';
import type { Session } from './session.ts';
import { ApiError, createDoc, listDocs, type DocSummary } from './api.ts';
import { readRecentDocs, rememberDoc, type RecentDoc } from './recent-docs.ts';
import { docPath, navigate } from './router.ts';
import { mayCreateDocs } from '../shared/permissions.ts';

interface ListedDoc {
  id: string;
  title: string;
  when?: number;
}

/**
 * The documents of this server, or, when it cannot be reached, the ones opened on this device.
 * Fires `name-change` (detail: the new name) when the person renames themselves.
 */
export class TandemDocList extends LitElement {
  static properties = {
    session: { attribute: false },
    docs: { state: true },
    offline: { state: true },
    loading: { state: true },
    creating: { state: true },
    error: { state: true },
  };
  declare session: Session | null;
  declare docs: ListedDoc[];
  declare offline: boolean;
  declare loading: boolean;
  declare creating: boolean;
  declare error: string;

  constructor() {
    super();
    this.session = null;
    this.docs = [];
    this.offline = false;
    this.loading = true;
    this.creating = false;
    this.error = '';
  }

  protected createRenderRoot() {
    return this;
  }

  connectedCallback(): void {
    super.connectedCallback();
    document.title = 'Documents · Tandem';
    void this.load();
  }

  private async load(): Promise<void> {
    if (!this.session) return;
    this.loading = true;
    try {
      const docs = await listDocs(this.session.token);
      this.docs = docs.map(fromServer).sort((a, b) => (b.when ?? 0) - (a.when ?? 0));
      this.offline = false;
      this.error = '';
    } catch (error) {
      const recent = await readRecentDocs();
      this.docs = recent.map(fromRecent);
      this.offline = error instanceof ApiError && error.code === 'OFFLINE';
      this.error = this.offline ? '' : describe(error);
      if (error instanceof ApiError && error.status === 401) this.docs = [];
    } finally {
      this.loading = false;
    }
  }

  private async create(): Promise<void> {
    if (!this.session || this.creating) return;
    this.creating = true;
    this.error = '';
    try {
      const doc = await createDoc(this.session.token, 'Untitled');
      await rememberDoc(doc.id, doc.title);
      navigate(docPath(doc.id));
    } catch (error) {
      this.error = `The document could not be created: ${describe(error)}`;
    } finally {
      this.creating = false;
    }
  }

  render() {
    const canCreate = this.session ? mayCreateDocs(this.session.claims) : false;
    return html`<main class="list-main">
      <div class="list-head">
        <h1>Documents</h1>
        ${canCreate
          ? html`<button type="button" class="primary" ?disabled=${this.creating} @click=${this.create}>New document</button>`
          : ''}
      </div>
      ${this.error ? html`<p class="message error" role="alert">${this.error}</p>` : ''}
      ${this.offline
        ? html`<p class="message">The server cannot be reached. These are the documents opened on this device.</p>`
        : ''}
      ${this.renderDocs()}
      ${this.renderName()}
    </main>`;
  }

  private renderDocs() {
    if (this.loading && this.docs.length === 0) return html`<p class="muted">Loading…</p>`;
    if (this.docs.length === 0) {
      if (this.error) return '';
      return html`<p class="muted">${this.offline ? 'No document has been opened on this device yet.' : 'No documents yet.'}</p>`;
    }
    return html`<ul class="doc-list" aria-label="Documents">
      ${this.docs.map(
        (doc) => html`<li>
          <a href=${docPath(doc.id)}>${doc.title || 'Untitled'}</a>
          ${doc.when ? html`<time class="muted" datetime=${new Date(doc.when).toISOString()}>${formatWhen(doc.when)}</time>` : ''}
        </li>`,
      )}
    </ul>`;
  }

  private renderName() {
    if (!this.session) return '';
    return html`<form class="name-form" @submit=${this.onName}>
      <label for="your-name">Your name</label>
      <input id="your-name" name="name" autocomplete="nickname" maxlength="60" .value=${this.session.name} />
      <button type="submit">Save name</button>
    </form>`;
  }

  private onName(event: SubmitEvent) {
    event.preventDefault();
    const name = new FormData(event.target as HTMLFormElement).get('name');
    this.dispatchEvent(new CustomEvent('name-change', { detail: String(name ?? ''), bubbles: true, composed: true }));
  }
}

function fromServer(doc: DocSummary): ListedDoc {
  const when = typeof doc.updatedAt === 'number' ? doc.updatedAt : Date.parse(doc.updatedAt ?? '');
  return { id: doc.id, title: doc.title, when: Number.isFinite(when) ? when : undefined };
}

function fromRecent(doc: RecentDoc): ListedDoc {
  return { id: doc.id, title: doc.title, when: doc.openedAt };
}

function describe(error: unknown): string {
  if (error instanceof ApiError && error.status === 401) {
    return 'The server does not accept the sign-in of this browser. Open the link printed by npm start again.';
  }
  return error instanceof Error ? error.message : 'Something went wrong.';
}

function formatWhen(when: number): string {
  return new Date(when).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

customElements.define('tandem-doc-list', TandemDocList);
