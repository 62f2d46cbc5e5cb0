import { html, nothing } from 'lit';
import { LightElement } from './light-element.ts';

/**
 * The find bar over the text (FIND1): the textbox `Find` with the match count (`2 of 5`), the
 * buttons `Previous match` and `Next match` (Shift+Enter and Enter in the box), and for editors
 * the textbox `Replace` with the buttons `Replace` and `Replace all`. It takes the focus when it
 * opens (`focusFind`); Escape anywhere in it closes it.
 *
 * Fires `find-query` (detail: `{search, replace}`, at each keystroke), `find-next`,
 * `find-previous`, `find-replace`, `find-replace-all` and `find-close`.
 */
export class TandemFindBar extends LightElement {
  static properties = {
    canReplace: { type: Boolean },
    status: {},
  };
  declare canReplace: boolean;
  /** The match count as the bar says it (see find-commands.ts); empty while nothing is searched. */
  declare status: string;

  constructor() {
    super();
    this.canReplace = false;
    this.status = '';
  }

  /** Puts the focus in `Find`, its text selected to be typed over. */
  focusFind(): void {
    const input = this.input('find');
    input?.focus();
    input?.select();
  }

  /** Puts `text` in `Find` and searches for it (Ctrl+F over selected text). */
  seed(text: string): void {
    const input = this.input('find');
    if (!input) return;
    input.value = text;
    this.onQuery();
  }

  private input(name: 'find' | 'replace'): HTMLInputElement | null {
    return this.querySelector(`input[name="${name}"]`);
  }

  render() {
    return html`<div class="find-bar" role="search" aria-label="Search the text" @keydown=${this.onKey}>
      <input
        name="find"
        type="text"
        aria-label="Find"
        placeholder="Find"
        autocomplete="off"
        spellcheck="false"
        @input=${this.onQuery}
        @keydown=${this.onFindKey}
      />
      <span class="find-status" role="status" aria-live="polite">${this.status}</span>
      ${this.button('Previous match', '↑', 'find-previous', 'Shift+Enter')} ${this.button('Next match', '↓', 'find-next', 'Enter')}
      ${this.canReplace
        ? html`<input
              name="replace"
              type="text"
              aria-label="Replace"
              placeholder="Replace with"
              autocomplete="off"
              spellcheck="false"
              @input=${this.onQuery}
              @keydown=${this.onReplaceKey}
            />
            <button type="button" @click=${() => this.emit('find-replace')}>Replace</button>
            <button type="button" @click=${() => this.emit('find-replace-all')}>Replace all</button>`
        : nothing}
      ${this.button('Close find', '✕', 'find-close', 'Escape')}
    </div>`;
  }

  private button(label: string, text: string, event: string, key: string) {
    // A press keeps the focus where it is (in `Find`, to go on typing).
    return html`<button
      type="button"
      class="find-button"
      aria-label=${label}
      title=${`${label} (${key})`}
      @mousedown=${(e: MouseEvent) => e.preventDefault()}
      @click=${() => this.emit(event)}
    >
      ${text}
    </button>`;
  }

  private onQuery() {
    this.emit('find-query', { search: this.input('find')?.value ?? '', replace: this.input('replace')?.value ?? '' });
  }

  private onFindKey(event: KeyboardEvent) {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    this.emit(event.shiftKey ? 'find-previous' : 'find-next');
  }

  /** Enter in `Replace` replaces the selected match and moves to the next. */
  private onReplaceKey(event: KeyboardEvent) {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    this.emit('find-replace');
  }

  private onKey(event: KeyboardEvent) {
    if (event.key === 'Escape') {
      event.preventDefault();
      this.emit('find-close');
    } else if (event.key === 'f' && (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey) {
      // Ctrl+F again goes back to the search text rather than to the browser's own find.
      event.preventDefault();
      this.focusFind();
    }
  }

  private emit(name: string, detail?: unknown) {
    this.dispatchEvent(new CustomEvent(name, { detail }));
  }
}

customElements.define('tandem-find-bar', TandemFindBar);
