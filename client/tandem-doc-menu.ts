import { html } from 'lit';
import { ContextConsumer } from '@lit/context';
import { LightElement } from './light-element.ts';
import { fetchExport, importIntoDoc } from './api.ts';
import { describeListError } from './doc-listing.ts';
import { sessionContext } from './session-context.ts';

type ExportFormat = 'markdown' | 'html' | 'docx';

const downloads: { format: ExportFormat; label: string; extension: string }[] = [
  { format: 'markdown', label: 'Markdown', extension: 'md' },
  { format: 'html', label: 'HTML', extension: 'html' },
  { format: 'docx', label: 'Word', extension: 'docx' },
];

/** The most a file to import may hold, as the server takes it (its body limit, 1 MiB, less the JSON around it). */
const maxImportBytes = 1_000_000;

/**
 * The document's own menu, beside the toolbar: `Import` (a Markdown or HTML file, added to the
 * text by the server, CAT6, which says what it could not keep) and `Download` as Markdown, HTML
 * or Word (CAT5). Kept apart from the editor's toolbar: it works on the whole document through
 * the API, not on the selection.
 */
export class TandemDocMenu extends LightElement {
  static properties = {
    docId: {},
    docTitle: {},
    canImport: { type: Boolean },
    open: { state: true },
    busy: { state: true },
    notice: { state: true },
  };
  declare docId: string;
  /** The document's title as shown, which names downloaded files. */
  declare docTitle: string;
  declare canImport: boolean;
  declare open: boolean;
  declare busy: boolean;
  /** What the last import or download said: a sentence and the import's warnings. */
  declare notice: { text: string; warnings: string[]; error: boolean } | null;

  private readonly sessionFrom = new ContextConsumer(this, { context: sessionContext, subscribe: true });

  constructor() {
    super();
    this.docId = '';
    this.docTitle = '';
    this.canImport = false;
    this.open = false;
    this.busy = false;
    this.notice = null;
  }

  render() {
    return html`<div class="doc-menu">
      ${this.canImport
        ? html`<button type="button" ?disabled=${this.busy} @click=${this.chooseFile}>Import</button>
            <input class="visually-hidden" type="file" hidden accept=".md,.markdown,.txt,.html,.htm,text/markdown,text/html,text/plain" @change=${this.onFile} />`
        : ''}
      <button type="button" aria-haspopup="menu" aria-expanded=${this.open} @click=${() => (this.open = !this.open)} @keydown=${this.onKeyDown}>Download</button>
      ${this.open
        ? html`<div role="menu" aria-label="Download as" @keydown=${this.onKeyDown}>
            ${downloads.map((each) => html`<button type="button" role="menuitem" @click=${() => this.download(each)}>${each.label}</button>`)}
          </div>`
        : ''}
      ${this.renderNotice()}
    </div>`;
  }

  private renderNotice() {
    const notice = this.notice;
    if (!notice) return '';
    return html`<div class="message ${notice.error ? 'error' : ''}" role=${notice.error ? 'alert' : 'status'}>
      ${notice.text}
      ${notice.warnings.length ? html`<ul class="import-warnings">${notice.warnings.map((warning) => html`<li>${warning}</li>`)}</ul>` : ''}
      <button type="button" @click=${() => (this.notice = null)}>Dismiss</button>
    </div>`;
  }

  private onKeyDown(event: KeyboardEvent) {
    if (event.key === 'Escape' && this.open) {
      this.open = false;
      event.stopPropagation();
    }
  }

  private chooseFile() {
    this.querySelector<HTMLInputElement>('input[type=file]')?.click();
  }

  private async onFile(event: Event) {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    const token = this.sessionFrom.value?.token;
    if (!file || !token) return;
    if (file.size > maxImportBytes) {
      this.notice = { text: `${file.name} is too large to import (at most 1 MB).`, warnings: [], error: true };
      return;
    }
    this.busy = true;
    try {
      const format = /\.html?$/i.test(file.name) || file.type === 'text/html' ? 'html' : 'markdown';
      const answer = await importIntoDoc(token, this.docId, { format, source: await file.text() });
      this.notice = { text: `Imported ${file.name}.`, warnings: answer.warnings, error: false };
    } catch (error) {
      this.notice = { text: `${file.name} could not be imported: ${describeListError(error)}`, warnings: [], error: true };
    } finally {
      this.busy = false;
    }
  }

  /** Fetches the export with the token (the API takes no cookie) and hands it to the browser as a file. */
  private async download({ format, extension }: (typeof downloads)[number]) {
    this.open = false;
    const token = this.sessionFrom.value?.token;
    if (!token) return;
    try {
      const blob = await fetchExport(token, this.docId, format);
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = `${fileName(this.docTitle)}.${extension}`;
      link.hidden = true;
      this.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (error) {
      this.notice = { text: `The download failed: ${describeListError(error)}`, warnings: [], error: true };
    }
  }
}

/** A file name from a title: no path separators or characters systems refuse. */
function fileName(title: string): string {
  // Control characters are what a file name may not hold, so the pattern names them.
  // eslint-disable-next-line no-control-regex -- the pattern matches control characters on purpose
  return (title.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, ' ').trim() || 'Untitled').slice(0, 100);
}

customElements.define('tandem-doc-menu', TandemDocMenu);
