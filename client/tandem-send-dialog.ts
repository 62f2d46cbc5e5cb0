import { html, type PropertyValues } from 'lit';
import { LightElement } from './light-element.ts';
import type * as Y from 'yjs';
import type { Instruction } from '../shared/notes/annotations.ts';
import { detectDrift, type Drift } from '../shared/notes/drift.ts';
import { kindIcon } from './annotation-icons.ts';
import { variantsAskedLabel } from './variant-choice.ts';

/**
 * The send dialog: a modal `dialog` listing exactly the instructions that will go (text and
 * quoted target, and `3 variants` for one asking for more than one answer, VAR1), with `Send`
 * and `Cancel`. An instruction whose text changed since it was
 * pinned (RUN5) says what it was and what it is now, read from `textYdoc` when the dialog opens
 * or its list changes. Focus stays inside while it is open; Escape closes it. Fires
 * `send-confirm` and `dialog-close`.
 */
export class TandemSendDialog extends LightElement {
  static properties = {
    open: { type: Boolean },
    instructions: { attribute: false },
    orphaned: { attribute: false },
    textYdoc: { attribute: false },
    blocker: {},
    sending: { type: Boolean },
    problem: {},
  };
  declare open: boolean;
  declare instructions: readonly Instruction[];
  /** Ids of instructions whose text is deleted. */
  declare orphaned: ReadonlySet<string>;
  /** The document's text, against which the instructions' quotes are checked for drift. */
  declare textYdoc: Y.Doc | null;
  /** Why sending cannot happen now, or null. */
  declare blocker: string | null;
  declare sending: boolean;
  declare problem: string | null;

  constructor() {
    super();
    this.open = false;
    this.instructions = [];
    this.orphaned = new Set();
    this.textYdoc = null;
    this.blocker = null;
    this.sending = false;
    this.problem = null;
  }

  private drifts: ReadonlyMap<string, Drift> = new Map();

  protected willUpdate(changed: PropertyValues<this>): void {
    if (!this.open || !(changed.has('open') || changed.has('instructions') || changed.has('textYdoc'))) return;
    const found = this.textYdoc ? detectDrift(this.textYdoc, this.instructions) : [];
    this.drifts = new Map(this.instructions.flatMap((instruction, index) => {
      const drift = found[index];
      return drift ? [[instruction.id, drift]] : [];
    }));
  }

  private get dialog(): HTMLDialogElement | null {
    return this.querySelector('dialog');
  }

  render() {
    return html`<dialog
      class="send-dialog"
      aria-modal="true"
      aria-labelledby="send-dialog-title"
      @close=${this.onClose}
      @keydown=${this.onKeyDown}
    >
      ${this.open ? this.renderContent() : ''}
    </dialog>`;
  }

  private renderContent() {
    const count = this.instructions.length;
    return html`<h2 id="send-dialog-title">Send ${count === 1 ? '1 instruction' : `${count} instructions`} to the agent</h2>
      <p class="muted">The agent gets the whole document and works on these, as one run:</p>
      <ol class="send-list" aria-label="Instructions to send">
        ${this.instructions.map((instruction) => {
          const gone = this.orphaned.has(instruction.id);
          const variants = variantsAskedLabel(instruction.variants);
          return html`<li class="send-item">
            ${kindIcon('instruction')}
            <span class="send-text">${instruction.turns[0].text}</span>
            ${variants ? html`<span class="send-variants">${variants}</span>` : ''}
            <span class="send-target">on “${instruction.quote}”${gone ? html` <span class="orphan-note">original text deleted</span>` : ''}</span>
            ${renderDrift(this.drifts.get(instruction.id))}
          </li>`;
        })}
      </ol>
      ${count === 0 ? html`<p class="muted">No instruction is ready.</p>` : ''}
      ${this.problem ? html`<p class="message error" role="alert">${this.problem}</p>` : ''}
      ${this.blocker ? html`<p class="offline-note">${this.blocker}</p>` : ''}
      <div class="dialog-buttons">
        <button type="button" @click=${this.close}>Cancel</button>
        <button type="button" class="primary" ?disabled=${this.blocker !== null || this.sending || count === 0} @click=${this.confirm}>
          ${this.sending ? 'Sending…' : 'Send'}
        </button>
      </div>`;
  }

  protected updated(): void {
    const dialog = this.dialog;
    if (!dialog) return;
    if (this.open && !dialog.open) {
      dialog.showModal();
      dialog.querySelector<HTMLButtonElement>('button.primary:not(:disabled)')?.focus();
    } else if (!this.open && dialog.open) {
      dialog.close();
    }
  }

  private confirm() {
    this.dispatchEvent(new CustomEvent('send-confirm'));
  }

  private close() {
    this.dialog?.close();
  }

  private onClose() {
    if (this.open) this.dispatchEvent(new CustomEvent('dialog-close'));
  }

  /** Tab and Shift+Tab wrap around inside the dialog rather than leaving for the browser's bar. */
  private onKeyDown(event: KeyboardEvent) {
    if (event.key !== 'Tab') return;
    const focusable = Array.from(this.dialog?.querySelectorAll<HTMLElement>('button:not(:disabled)') ?? []);
    if (focusable.length === 0) return;
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  }
}

function renderDrift(drift: Drift | undefined) {
  if (!drift) return '';
  return html`<span class="send-drift"
    >The text changed since you pinned this: was «${drift.was}», now ${drift.now === null ? 'deleted' : `«${drift.now}»`}</span
  >`;
}

customElements.define('tandem-send-dialog', TandemSendDialog);
