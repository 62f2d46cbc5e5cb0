import { html } from 'lit';
import { LightElement } from './light-element.ts';
import { live } from 'lit/directives/live.js';

/**
 * The document's title field. Fires `title-change` (detail: the new title) as the person types;
 * the owner writes it into the document and passes the stored value back down. While no title
 * is set the field is empty and its placeholder is the text's first line, or `Untitled` (CAT1).
 */
export class TandemTitle extends LightElement {
  static properties = { value: {}, firstLine: {}, readOnly: { type: Boolean } };
  declare value: string;
  declare firstLine: string;
  declare readOnly: boolean;

  constructor() {
    super();
    this.value = '';
    this.firstLine = '';
    this.readOnly = false;
  }

  render() {
    return html`<input
      class="title-input"
      aria-label="Title"
      placeholder=${this.firstLine || 'Untitled'}
      maxlength="200"
      autocomplete="off"
      .value=${live(this.value)}
      ?readonly=${this.readOnly}
      @input=${this.onInput}
      @keydown=${this.onKeyDown}
    />`;
  }

  private onInput(event: InputEvent) {
    const value = (event.target as HTMLInputElement).value;
    this.dispatchEvent(new CustomEvent('title-change', { detail: value, bubbles: true, composed: true }));
  }

  /** Enter moves on to the text, as in most editors. */
  private onKeyDown(event: KeyboardEvent) {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    this.dispatchEvent(new CustomEvent('title-done', { bubbles: true, composed: true }));
  }
}

customElements.define('tandem-title', TandemTitle);
