import { LitElement, html } from 'lit';
import type { Session } from './session.ts';
import { ConnectionController } from './connection-controller.ts';
import { PresenceController } from './presence-controller.ts';
import type { DocConnection } from './doc-connection.ts';
import { rememberDoc, renameRecentDoc } from './recent-docs.ts';
import type { TandemEditor } from './tandem-editor.ts';
import './tandem-editor.ts';
import './tandem-title.ts';
import './tandem-status.ts';
import './tandem-presence.ts';

/** One document: its title, connection state, who is here, and the editor. */
export class TandemDocView extends LitElement {
  static properties = { docId: {}, session: { attribute: false } };
  declare docId: string;
  declare session: Session | null;

  private readonly link = new ConnectionController(this);
  private readonly presence = new PresenceController(this, () => this.link.connection);
  private remembered: DocConnection | null = null;
  private rememberedTitle = '';

  constructor() {
    super();
    this.docId = '';
    this.session = null;
  }

  protected createRenderRoot() {
    return this;
  }

  render() {
    const connection = this.link.connection;
    if (!connection) return html``;
    const { status, problem } = connection;
    const neverLoaded = connection.localLoaded && !connection.serverLoaded && connection.isEmpty && status === 'Offline';
    return html`<header class="doc-header">
        <a class="back-link" href="/">All documents</a>
        <tandem-status .status=${status}></tandem-status>
        <tandem-presence .peers=${this.presence.peers}></tandem-presence>
      </header>
      <main class="doc-main">
        ${problem ? html`<p class="message error" role="alert">${problem}</p>` : ''}
        ${neverLoaded
          ? html`<p class="message">This document has not been opened on this device before. It will appear
              when the server can be reached.</p>`
          : ''}
        ${problem && connection.isEmpty ? '' : this.renderText(connection)}
      </main>`;
  }

  private renderText(connection: DocConnection) {
    const { title, readOnly } = connection;
    return html`<tandem-title
        .value=${title}
        .readOnly=${readOnly}
        @title-change=${(event: CustomEvent<string>) => connection.setTitle(event.detail)}
        @title-done=${() => this.querySelector<TandemEditor>('tandem-editor')?.focusText()}
      ></tandem-title>
      <tandem-editor .connection=${connection} .readOnly=${readOnly}></tandem-editor>`;
  }

  /**
   * Keeps the page title and this device's list of recent documents up to date, and tells
   * tests (`data-saved-locally`) whether every change so far is stored on this device.
   */
  protected updated(): void {
    const connection = this.link.connection;
    const title = connection?.title ?? '';
    document.title = `${title || 'Untitled'} · Tandem`;
    this.dataset.savedLocally = String(!!connection?.savedLocally);
    if (!connection) return;
    // Only a document that really loaded goes on the list (not a mistyped or refused id).
    const loaded = connection.serverLoaded || (connection.localLoaded && !connection.isEmpty);
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

customElements.define('tandem-doc-view', TandemDocView);
