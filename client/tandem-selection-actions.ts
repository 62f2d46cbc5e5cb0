import { html } from 'lit';
import { LightElement } from './light-element.ts';
import { styleMap } from 'lit/directives/style-map.js';
import type { AnnotationKind } from '../shared/notes/annotations.ts';
import { kindIcon } from './annotation-icons.ts';
import { kindLabels } from './annotation-plugin.ts';
import './tandem-note-input.ts';

const buttonLabels: Record<AnnotationKind, string> = { comment: 'Comment', instruction: 'Instruct' };

/**
 * What floats next to selected text: the buttons `Comment` and `Instruct` (those this person
 * may use), or, while a draft is open, its text box `Comment` or `Instruction`. Placed by its
 * owner at `position` (pixels inside the text's frame).
 *
 * Fires `draft-open` (detail: the kind), `draft-save` (detail: the text), `draft-cancel`, and
 * `draft-dismiss` (Escape on the buttons: back to the text).
 */
export class TandemSelectionActions extends LightElement {
  static properties = {
    kinds: { attribute: false },
    drafting: {},
    position: { attribute: false },
    error: {},
  };
  declare kinds: readonly AnnotationKind[];
  declare drafting: AnnotationKind | null;
  declare position: { left: number; top: number };
  declare error: string;

  constructor() {
    super();
    this.kinds = [];
    this.drafting = null;
    this.position = { left: 0, top: 0 };
    this.error = '';
  }

  render() {
    const style = styleMap({ left: `${this.position.left}px`, top: `${this.position.top}px` });
    const kind = this.drafting;
    if (kind) {
      return html`<div class="selection-popover draft-box kind-${kind}" style=${style}>
        <p class="draft-title">${kindIcon(kind)} New ${kindLabels[kind].toLowerCase()}</p>
        <tandem-note-input
          .label=${kindLabels[kind]}
          .placeholder=${kind === 'comment' ? 'Write a comment for people…' : 'Tell the agent what to do…'}
          .saveLabel=${kind === 'comment' ? 'Save comment' : 'Save instruction'}
          .error=${this.error}
          @note-submit=${(event: CustomEvent<string>) => this.emit('draft-save', event.detail)}
          @note-cancel=${() => this.emit('draft-cancel')}
        ></tandem-note-input>
      </div>`;
    }
    return html`<div
      class="selection-popover selection-actions"
      role="toolbar"
      aria-label="Annotate the selection"
      style=${style}
      @keydown=${this.onKeyDown}
    >
      ${this.kinds.map(
        (each) => html`<button
          type="button"
          class="annotate-button kind-${each}"
          @mousedown=${(event: MouseEvent) => event.preventDefault()}
          @click=${() => this.emit('draft-open', each)}
        >
          ${kindIcon(each)}<span>${buttonLabels[each]}</span>
        </button>`,
      )}
    </div>`;
  }

  private onKeyDown(event: KeyboardEvent) {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    this.emit('draft-dismiss');
  }

  private emit(name: string, detail?: unknown) {
    this.dispatchEvent(new CustomEvent(name, { detail }));
  }
}

customElements.define('tandem-selection-actions', TandemSelectionActions);
