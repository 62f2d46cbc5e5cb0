import { html, type PropertyValues } from 'lit';
import { LightElement } from './light-element.ts';
import { styleMap } from 'lit/directives/style-map.js';
import type { AnnotationKind } from '../shared/notes/annotations.ts';
import { kindIcon } from './annotation-icons.ts';
import { kindLabels } from './annotation-plugin.ts';
import { variantCounts } from './variant-choice.ts';
import './tandem-note-input.ts';

const buttonLabels: Record<AnnotationKind, string> = { comment: 'Comment', instruction: 'Instruct' };

/** The detail of `draft-save`: the text, and for an instruction how many answers it asks for (VAR1). */
export interface DraftSave {
  text: string;
  variants: number;
}

/**
 * What floats next to selected text: the buttons `Comment` and `Instruct` (those this person
 * may use), or, while a draft is open, its text box `Comment` or `Instruction`; an instruction's
 * box also has the select `Variants`, how many answers to ask for (1 to 4, one unless changed).
 * Placed by its owner at `position` (pixels inside the text's frame).
 *
 * Fires `draft-open` (detail: the kind), `draft-save` (DraftSave), `draft-cancel`, and
 * `draft-dismiss` (Escape on the buttons: back to the text).
 */
export class TandemSelectionActions extends LightElement {
  static properties = {
    kinds: { attribute: false },
    drafting: {},
    position: { attribute: false },
    error: {},
    variants: { state: true },
  };
  declare kinds: readonly AnnotationKind[];
  declare drafting: AnnotationKind | null;
  declare position: { left: number; top: number };
  declare error: string;
  /** How many answers the open instruction draft asks for. */
  declare variants: number;

  constructor() {
    super();
    this.kinds = [];
    this.drafting = null;
    this.position = { left: 0, top: 0 };
    this.error = '';
    this.variants = 1;
  }

  protected willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('drafting')) this.variants = 1;
  }

  render() {
    const style = styleMap({ left: `${this.position.left}px`, top: `${this.position.top}px` });
    const kind = this.drafting;
    if (kind) {
      return html`<div class="selection-popover draft-box kind-${kind}" style=${style}>
        <p class="draft-title">${kindIcon(kind)} New ${kindLabels[kind].toLowerCase()}</p>
        ${kind === 'instruction' ? this.renderVariants() : ''}
        <tandem-note-input
          .label=${kindLabels[kind]}
          .placeholder=${kind === 'comment' ? 'Write a comment for people…' : 'Tell the agent what to do…'}
          .saveLabel=${kind === 'comment' ? 'Save comment' : 'Save instruction'}
          .error=${this.error}
          @note-submit=${(event: CustomEvent<string>) => this.emit('draft-save', this.saved(kind, event.detail))}
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

  private renderVariants() {
    return html`<p class="draft-variants">
      <label for="draft-variants">Variants</label>
      <select id="draft-variants" @change=${(event: Event) => (this.variants = Number((event.target as HTMLSelectElement).value))}>
        ${variantCounts.map((count) => html`<option value=${count} ?selected=${count === this.variants}>${count}</option>`)}
      </select>
      <span class="muted">answers for you to choose from</span>
    </p>`;
  }

  private saved(kind: AnnotationKind, text: string): DraftSave {
    return { text, variants: kind === 'instruction' ? this.variants : 1 };
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
