import { html } from 'lit';
import { LightElement } from '../light-element.ts';
import { ContextConsumer } from '@lit/context';
import { Task, TaskStatus } from '@lit/task';
import { createPage } from '../api.ts';
import { describeListError } from '../doc-listing.ts';
import { rememberDoc } from '../recent-docs.ts';
import { docPath, navigate } from '../router.ts';
import { sessionContext } from '../session-context.ts';

/**
 * The form that makes a page (PAGE1): a title, the HTML pasted or read from a file, `Create
 * page`. The server sanitizes the HTML; the new page opens. Fires `new-page-cancel`.
 */
export class TandemNewPage extends LightElement {
  static properties = { source: { state: true } };
  declare source: string;

  private readonly sessionFrom = new ContextConsumer(this, { context: sessionContext, subscribe: true });
  private readonly creating = new Task(this, {
    autoRun: false,
    task: async ([token, title, source]: readonly [string, string, string]) => {
      const doc = await createPage(token, title, source);
      await rememberDoc(doc.id, doc.title);
      navigate(docPath(doc.id));
    },
  });

  constructor() {
    super();
    this.source = '';
  }

  render() {
    const busy = this.creating.status === TaskStatus.PENDING;
    const failed = this.creating.status === TaskStatus.ERROR;
    return html`<form class="new-page" aria-label="New page" @submit=${this.submit}>
      <label>Title <input name="title" maxlength="200" value="Untitled page" /></label>
      <label>HTML <textarea name="html" rows="6" .value=${this.source} @input=${this.onInput}></textarea></label>
      <label>Or an HTML file <input type="file" accept=".html,.htm,text/html" @change=${this.onFile} /></label>
      ${failed ? html`<p class="message error" role="alert">The page could not be created: ${describeListError(this.creating.error)}</p>` : ''}
      <div class="note-buttons">
        <button type="button" class="quiet" @click=${() => this.dispatchEvent(new CustomEvent('new-page-cancel', { bubbles: true }))}>Cancel</button>
        <button type="submit" class="primary" ?disabled=${busy}>Create page</button>
      </div>
    </form>`;
  }

  private onInput(event: Event) {
    this.source = (event.target as HTMLTextAreaElement).value;
  }

  private async onFile(event: Event) {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (file) this.source = await file.text();
  }

  private submit(event: SubmitEvent) {
    event.preventDefault();
    const token = this.sessionFrom.value?.token;
    const title = String(new FormData(event.target as HTMLFormElement).get('title') ?? '').trim() || 'Untitled page';
    if (!token || this.creating.status === TaskStatus.PENDING) return;
    void this.creating.run([token, title, this.source]);
  }
}

customElements.define('tandem-new-page', TandemNewPage);
