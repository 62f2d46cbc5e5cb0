import { html, nothing } from 'lit';
import { LightElement } from './light-element.ts';
import { live } from 'lit/directives/live.js';

/**
 * A text box for a comment, an instruction or a reply. Enter saves, Shift+Enter breaks the
 * line, Escape cancels. Fires `note-submit` (detail: the text, never blank) and `note-cancel`.
 * Takes the focus when it appears.
 */
export class TandemNoteInput extends LightElement {
  static properties = {
    label: {},
    placeholder: {},
    value: {},
    saveLabel: {},
    error: {},
  };
  declare label: string;
  declare placeholder: string;
  declare value: string;
  declare saveLabel: string;
  declare error: string;

  constructor() {
    super();
    this.label = '';
    this.placeholder = '';
    this.value = '';
    this.saveLabel = 'Save';
    this.error = '';
  }

  protected firstUpdated(): void {
    const box = this.textarea;
    box?.focus();
    box?.setSelectionRange(box.value.length, box.value.length);
  }

  private get textarea(): HTMLTextAreaElement | null {
    return this.querySelector('textarea');
  }

  render() {
    return html`<div class="note-input">
      <textarea
        aria-label=${this.label}
        placeholder=${this.placeholder || nothing}
        rows="2"
        maxlength="10000"
        .value=${live(this.value)}
        @input=${this.onInput}
        @keydown=${this.onKeyDown}
      ></textarea>
      ${this.error ? html`<p class="note-error" role="alert">${this.error}</p>` : ''}
      <div class="note-buttons">
        <span class="note-hint muted">Enter to save · Shift+Enter for a new line</span>
        <button type="button" class="quiet" @click=${this.cancel}>Cancel</button>
        <button type="button" class="primary" @click=${this.submit}>${this.saveLabel}</button>
      </div>
    </div>`;
  }

  private onInput(event: InputEvent) {
    this.value = (event.target as HTMLTextAreaElement).value;
    this.error = '';
  }

  private onKeyDown(event: KeyboardEvent) {
    if (event.isComposing) return;
    if (event.key === 'Enter' && !event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey) {
      event.preventDefault();
      this.submit();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this.cancel();
    }
  }

  private submit() {
    const text = (this.textarea?.value ?? this.value).trim();
    if (text === '') {
      this.error = 'Write something first.';
      this.textarea?.focus();
      return;
    }
    this.dispatchEvent(new CustomEvent('note-submit', { detail: text }));
  }

  private cancel() {
    this.dispatchEvent(new CustomEvent('note-cancel'));
  }
}

customElements.define('tandem-note-input', TandemNoteInput);
