import { LitElement, html } from 'lit';
import type { DocConnection } from './doc-connection.ts';
import { EditorController } from './editor-controller.ts';
import type { ToolbarItem } from './editor-commands.ts';
import './tandem-toolbar.ts';

/**
 * The rich-text editor of one document: a toolbar over the ProseMirror view bound to the
 * connection's Y.Doc. Read-only views have no toolbar.
 */
export class TandemEditor extends LitElement {
  static properties = { connection: { attribute: false }, readOnly: { type: Boolean } };
  declare connection: DocConnection | null;
  declare readOnly: boolean;

  private readonly editor = new EditorController(this);

  constructor() {
    super();
    this.connection = null;
    this.readOnly = false;
  }

  protected createRenderRoot() {
    return this;
  }

  /** Puts the caret in the text (e.g. after Enter in the title). */
  focusText(): void {
    this.editor.view?.focus();
  }

  render() {
    return html`${this.readOnly
        ? html`<p class="read-only-note">You can read this document but not change it.</p>`
        : html`<tandem-toolbar .state=${this.editor.state} @toolbar-command=${this.onCommand}></tandem-toolbar>`}
      ${this.editor.mount}`;
  }

  private onCommand(event: CustomEvent<ToolbarItem>) {
    this.editor.run(event.detail.command);
  }
}

customElements.define('tandem-editor', TandemEditor);
