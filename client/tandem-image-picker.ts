import { html, nothing, type PropertyValues } from 'lit';
import { LightElement } from './light-element.ts';

/** The types the server keeps (shared/model/image-bytes.ts); the file chooser offers these. */
const accepted = 'image/png,image/jpeg,image/gif,image/webp';

/**
 * The box `Insert image` opens (IMG6): `Choose image file` opens the device's file chooser,
 * or the text box `Image address` takes an https address (Enter inserts, Escape cancels);
 * `error` says why an address was refused.
 *
 * Fires `image-file` (detail: the File chosen), `image-address` (detail: the address as
 * typed), `image-input` (typing after an error) and `image-cancel`.
 */
export class TandemImagePicker extends LightElement {
  static properties = { error: {} };
  declare error: string;

  constructor() {
    super();
    this.error = '';
  }

  protected firstUpdated(_changed: PropertyValues<this>): void {
    this.querySelector<HTMLButtonElement>('.image-choose')?.focus();
  }

  render() {
    return html`<div class="image-picker" role="group" aria-label="Insert image" @keydown=${this.onKey}>
      <button type="button" class="image-choose" @click=${() => this.querySelector<HTMLInputElement>('input[type=file]')?.click()}>Choose image file</button>
      <input type="file" accept=${accepted} hidden @change=${this.onFile} />
      <input
        type="text"
        inputmode="url"
        autocomplete="off"
        spellcheck="false"
        aria-label="Image address"
        placeholder="or an address: https://…"
        aria-invalid=${this.error ? 'true' : 'false'}
        aria-describedby=${this.error ? 'image-picker-error' : nothing}
        @input=${() => this.error && this.emit('image-input')}
      />
      <button type="button" @click=${() => this.emit('image-cancel')}>Cancel</button>
      ${this.error ? html`<p id="image-picker-error" class="link-error" role="alert">${this.error}</p>` : nothing}
    </div>`;
  }

  private onFile(event: Event) {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (file) this.emit('image-file', file);
  }

  private onKey(event: KeyboardEvent) {
    if (event.key === 'Escape') {
      event.preventDefault();
      this.emit('image-cancel');
    } else if (event.key === 'Enter' && (event.target as HTMLElement).getAttribute('aria-label') === 'Image address') {
      event.preventDefault();
      this.emit('image-address', (event.target as HTMLInputElement).value);
    }
  }

  private emit(name: string, detail?: unknown) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }
}

customElements.define('tandem-image-picker', TandemImagePicker);
