import { html, nothing } from 'lit';
import { LightElement } from './light-element.ts';
import type { EditorState } from 'prosemirror-state';
import { tableMenuItems, toolbarItems, type ToolbarItem } from './editor-commands.ts';
import { caretInTable } from './table-commands.ts';

const isMac = /Mac|iPhone|iPad/.test(navigator.platform);

function shortcutText(shortcut: string): string {
  return shortcut
    .split('-')
    .map((key) => (key === 'Mod' ? (isMac ? '⌘' : 'Ctrl') : key === 'Alt' && isMac ? '⌥' : key.length === 1 ? key.toUpperCase() : key))
    .join(isMac ? '' : '+');
}

/** `shortcut` as `aria-keyshortcuts` writes it (`Control+Alt+ArrowDown`). */
function ariaShortcut(shortcut: string): string {
  return shortcut
    .split('-')
    .map((key) => (key === 'Mod' ? (isMac ? 'Meta' : 'Control') : key.length === 1 ? key.toUpperCase() : key))
    .join('+');
}

/**
 * The formatting toolbar, and the table menu while the caret is in a table. Reflects `state`
 * (pressed and disabled buttons) and fires
 * `toolbar-command` (detail: the ToolbarItem) when a button is used, and `toolbar-escape` on
 * Escape in either toolbar (the editor then puts the focus back in the text).
 */
export class TandemToolbar extends LightElement {
  static properties = { state: { attribute: false } };
  declare state: EditorState | null;

  constructor() {
    super();
    this.state = null;
  }

  /** Focuses the first usable button of the table menu when it shows, else of the formatting toolbar. */
  focusFirstButton(): void {
    const bar = this.querySelector('.table-menu') ?? this.querySelector('.toolbar');
    bar?.querySelector<HTMLButtonElement>('button:not([disabled])')?.focus();
  }

  render() {
    const state = this.state;
    return html`<div class="toolbar" role="toolbar" aria-label="Formatting" @keydown=${this.onKeydown}>
        ${toolbarItems.map((item) => (item === null ? html`<span class="toolbar-gap" aria-hidden="true"></span>` : this.button(item, state)))}
      </div>
      ${state && caretInTable(state)
        ? html`<div class="toolbar table-menu" role="toolbar" aria-label="Table" @keydown=${this.onKeydown}>${tableMenuItems.map((item) => this.button(item, state))}</div>`
        : nothing}`;
  }

  private button(item: ToolbarItem, state: EditorState | null) {
    return html`<button
      type="button"
      class="toolbar-button"
      aria-label=${item.label}
      title=${item.shortcut ? `${item.label} (${shortcutText(item.shortcut)})` : item.label}
      aria-keyshortcuts=${item.shortcut ? ariaShortcut(item.shortcut) : nothing}
      aria-pressed=${item.active ? String(!!state && item.active(state)) : nothing}
      ?disabled=${!state || !item.command(state)}
      @mousedown=${(event: MouseEvent) => event.preventDefault()}
      @click=${() => this.use(item)}
    >
      ${item.text}
    </button>`;
  }

  private readonly onKeydown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    this.dispatchEvent(new CustomEvent('toolbar-escape', { bubbles: true, composed: true }));
  };

  private use(item: ToolbarItem) {
    this.dispatchEvent(new CustomEvent('toolbar-command', { detail: item, bubbles: true, composed: true }));
  }
}

customElements.define('tandem-toolbar', TandemToolbar);
