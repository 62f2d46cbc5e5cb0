import { html, nothing, type PropertyValues } from 'lit';
import { styleMap } from 'lit/directives/style-map.js';
import { LightElement } from './light-element.ts';

/**
 * What floats under a link (LINK4): while the link box is open (`editing`), the text box `Link
 * address` (Enter applies, Escape cancels, `error` says why an address was refused); otherwise,
 * for the link under the caret, the buttons `Open link`, and (with `canEdit`) `Edit link` and
 * `Remove link`. Placed by its owner at `position` (pixels inside the text's frame).
 *
 * Fires `link-apply` (detail: the address as typed), `link-cancel` (detail: whether the focus
 * goes back to the text), `link-open`, `link-edit`, `link-remove` and `link-dismiss` (Escape on
 * the buttons: back to the text).
 */
export class TandemLinkPopover extends LightElement {
  static properties = {
    editing: { type: Boolean },
    href: {},
    canEdit: { type: Boolean },
    error: {},
    position: { attribute: false },
  };
  declare editing: boolean;
  /** The link's address: the box's first value, or the address the buttons are for. */
  declare href: string;
  declare canEdit: boolean;
  declare error: string;
  declare position: { left: number; top: number };

  constructor() {
    super();
    this.editing = false;
    this.href = '';
    this.canEdit = false;
    this.error = '';
    this.position = { left: 0, top: 0 };
  }

  private get input(): HTMLInputElement | null {
    return this.querySelector('input');
  }

  /** The box takes the focus when it opens, its address selected to be typed over. */
  protected updated(changed: PropertyValues<this>): void {
    if (changed.has('editing') && this.editing) {
      const input = this.input;
      input?.focus();
      input?.select();
    }
  }

  render() {
    const style = styleMap({ left: `${this.position.left}px`, top: `${this.position.top}px` });
    if (this.editing) {
      return html`<div class="selection-popover link-box" style=${style} @focusout=${this.onFocusOut}>
        <input
          type="text"
          inputmode="url"
          autocomplete="off"
          spellcheck="false"
          aria-label="Link address"
          placeholder="https://…"
          .value=${this.href}
          aria-invalid=${this.error ? 'true' : 'false'}
          aria-describedby=${this.error ? 'link-box-error' : nothing}
          @keydown=${this.onBoxKey}
          @input=${() => this.error && this.emit('link-input')}
        />
        ${this.error ? html`<p id="link-box-error" class="link-error" role="alert">${this.error}</p>` : nothing}
      </div>`;
    }
    return html`<div class="selection-popover link-actions" role="toolbar" aria-label="Link" style=${style} @keydown=${this.onButtonsKey}>
      <span class="link-target" title=${this.href}>${this.href}</span>
      ${this.button('Open link', 'link-open')}
      ${this.canEdit ? [this.button('Edit link', 'link-edit'), this.button('Remove link', 'link-remove')] : nothing}
    </div>`;
  }

  private button(label: string, event: string) {
    return html`<button
      type="button"
      class="link-button"
      @mousedown=${(e: MouseEvent) => e.preventDefault()}
      @click=${() => this.emit(event)}
    >
      ${label}
    </button>`;
  }

  private onBoxKey(event: KeyboardEvent) {
    if (event.key === 'Enter' && !event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey) {
      event.preventDefault();
      this.emit('link-apply', this.input?.value ?? '');
    } else if (event.key === 'Escape') {
      event.preventDefault();
      this.emit('link-cancel', true);
    }
  }

  /** Leaving the box for somewhere else (a click in the text) closes it without a change. */
  private onFocusOut(event: FocusEvent) {
    const next = event.relatedTarget as globalThis.Node | null;
    if (next && this.contains(next)) return;
    if (this.editing) this.emit('link-cancel', false);
  }

  private onButtonsKey(event: KeyboardEvent) {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    this.emit('link-dismiss');
  }

  private emit(name: string, detail?: unknown) {
    this.dispatchEvent(new CustomEvent(name, { detail }));
  }
}

customElements.define('tandem-link-popover', TandemLinkPopover);
