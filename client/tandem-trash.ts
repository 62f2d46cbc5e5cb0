import { html } from 'lit';
import { ContextConsumer } from '@lit/context';
import { Task } from '@lit/task';
import { LightElement } from './light-element.ts';
import { listTrash, restoreDoc } from './api.ts';
import { sessionContext } from './session-context.ts';
import { describeListError, docRestoredEvent } from './doc-listing.ts';

/**
 * CAT3: the trash of the document list, for editors: each trashed document with when it was
 * deleted and until when it can come back, and `Restore`. Read when shown, after each restore,
 * and whenever `version` changes (the list deleted or restored a document).
 */
export class TandemTrash extends LightElement {
  static properties = { failure: { state: true }, version: { type: Number } };
  declare failure: string;
  declare version: number;

  private readonly sessionFrom = new ContextConsumer(this, { context: sessionContext, subscribe: true });
  private readonly trash = new Task(this, {
    task: ([token]) => (token ? listTrash(token) : Promise.resolve([])),
    args: () => [this.sessionFrom.value?.token ?? '', this.version] as const,
  });

  constructor() {
    super();
    this.failure = '';
    this.version = 0;
  }

  render() {
    return html`<section class="trash" aria-label="Trash">
      <h2>Trash</h2>
      ${this.failure ? html`<p class="message error" role="alert">${this.failure}</p>` : ''}
      ${this.trash.render({
        pending: () => html`<p class="muted">Loading…</p>`,
        error: (error) => html`<p class="message error" role="alert">${describeListError(error)}</p>`,
        complete: (docs) =>
          docs.length === 0
            ? html`<p class="muted">The trash is empty.</p>`
            : html`<ul class="doc-list" aria-label="In the trash">
                ${docs.map(
                  (doc) => html`<li>
                    <span>${doc.title || 'Untitled'}</span>
                    <span class="muted">deleted ${when(doc.deletedAt)} · can be restored until ${when(doc.purgeAt)}</span>
                    <span class="doc-actions">
                      <button type="button" class="link-button" aria-label=${`Restore ${doc.title || 'Untitled'}`} @click=${() => this.restore(doc.id)}>
                        Restore
                      </button>
                    </span>
                  </li>`,
                )}
              </ul>`,
      })}
    </section>`;
  }

  private async restore(id: string) {
    const token = this.sessionFrom.value?.token;
    if (!token) return;
    this.failure = '';
    try {
      await restoreDoc(token, id);
      this.dispatchEvent(new CustomEvent(docRestoredEvent, { bubbles: true }));
    } catch (error) {
      this.failure = describeListError(error);
    } finally {
      void this.trash.run();
    }
  }
}

function when(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

customElements.define('tandem-trash', TandemTrash);
