import { html, nothing } from 'lit';
import { LightElement } from './light-element.ts';
import { classMap } from 'lit/directives/class-map.js';
import type { Annotation, InstructionState } from '../shared/notes/annotations.ts';
import type { WriteResult } from '../shared/notes/annotations-writers.ts';
import type { AnnotationRequest } from './annotation-actions.ts';
import { kindIcon } from './annotation-icons.ts';
import { kindLabels, type Placement } from './annotation-plugin.ts';
import { consumeAnnotationRights } from './session-context.ts';
import './tandem-note-input.ts';
import './tandem-time.ts';

export const stateLabels: Record<InstructionState, string> = {
  draft: 'Draft',
  queued: 'Ready',
  sent: 'Sent',
  answered: 'Answered',
};

/** Carries out a card's request and says how it went (the owner's AnnotationActions, or selecting text). */
export type PerformAnnotationRequest = (request: AnnotationRequest) => WriteResult;

const notOpen: PerformAnnotationRequest = () => ({ ok: false, error: { code: 'NOT_FOUND', message: 'The notes are not open.' } });

/**
 * One annotation's card: kind, author, state, the quoted target ("original text deleted" when
 * its text is gone), the text and replies, links to the comment or instructions it is tied
 * to, and the actions this person may take. Clicking the card (or its quote) asks to select
 * its text. Every action goes through `perform`, which its owner passes down; a refusal shows
 * on the card in the writer's words.
 */
export class TandemAnnotationCard extends LightElement {
  static properties = {
    annotation: { attribute: false },
    placement: { attribute: false },
    active: { type: Boolean },
    perform: { attribute: false },
    source: { attribute: false },
    derived: { attribute: false },
    sentText: { attribute: false },
    targetName: { attribute: false },
    discardedText: { attribute: false },
    mode: { state: true },
    error: { state: true },
  };
  declare annotation: Annotation;
  declare placement: Placement | undefined;
  declare active: boolean;
  declare perform: PerformAnnotationRequest | undefined;
  /** The comment this instruction was made from (null when none or gone). */
  declare source: Annotation | null;
  /** The instructions made from this comment. */
  declare derived: readonly Annotation[];
  /** For a sent or answered instruction: the work order its run carried, or null if unknown. */
  declare sentText: string | null;
  /** What to call the target when the quote is empty (a page's image: `image “A cat”`), or null. */
  declare targetName: string | null;
  /** How to show `discardedChange` (a page's: the element's text, not its HTML), or null to show it as it is. */
  declare discardedText: string | null;
  declare mode: 'view' | 'reply' | 'edit';
  declare error: string;

  constructor() {
    super();
    this.placement = undefined;
    this.active = false;
    this.perform = undefined;
    this.source = null;
    this.derived = [];
    this.sentText = null;
    this.targetName = null;
    this.discardedText = null;
    this.mode = 'view';
    this.error = '';
  }

  /** What this person may do with the document's annotations (from `<tandem-doc-view>`). */
  private readonly rights = consumeAnnotationRights(this);

  render() {
    const a = this.annotation;
    const label = kindLabels[a.kind];
    const orphaned = this.placement?.status === 'orphaned' && this.placement.reason === 'deleted';
    const classes = {
      'annotation-card': true,
      [`kind-${a.kind}`]: true,
      'is-active': this.active,
      'is-resolved': a.resolved,
      'is-orphaned': orphaned,
    };
    return html`<article
      class=${classMap(classes)}
      data-annotation-id=${a.id}
      data-kind=${a.kind}
      aria-label=${`${label} on ${this.target()}`}
      aria-current=${this.active ? 'true' : nothing}
      tabindex="-1"
      @click=${this.onClick}
    >
      <header class="card-head">
        ${kindIcon(a.kind)}<span class="card-kind">${label}</span>
        <span class="card-author">${a.author.name || a.author.id}</span>
        <tandem-time .at=${a.createdAt}></tandem-time>
        ${a.kind === 'instruction'
          ? html`<span class="card-state state-${a.state}">${stateLabels[a.state]}</span>`
          : a.resolved
            ? html`<span class="card-state state-resolved">Resolved</span>`
            : ''}
      </header>
      ${this.renderQuote(orphaned)} ${this.renderText()} ${this.renderDiscarded()}
      ${a.turns.length > 1
        ? html`<ol class="card-replies" aria-label="Replies">
            ${a.turns.slice(1).map((turn) => html`<li>
                <span class="reply-author">${turn.author.name || turn.author.id}</span>
                <tandem-time .at=${turn.at}></tandem-time> ${turn.text}
              </li>`)}
          </ol>`
        : ''}
      ${this.renderLinks()} ${this.renderActions()}
    </article>`;
  }

  /** The quote in quotation marks, or `targetName` when the quote is empty and there is one. */
  private target(): string {
    const quote = this.annotation.quote;
    return quote === '' && this.targetName ? this.targetName : `“${quote}”`;
  }

  private renderQuote(orphaned: boolean) {
    if (orphaned) {
      return html`<p class="card-quote orphaned"><span class="quote-text">${this.target()}</span>
        <span class="orphan-note">original text deleted</span></p>`;
    }
    return html`<button type="button" class="card-quote" title="Show in the text" @click=${this.select}>${this.target()}</button>`;
  }

  private renderText() {
    const a = this.annotation;
    if (this.mode === 'edit') {
      return html`<tandem-note-input
        .label=${'Edit instruction'}
        .value=${a.turns[0].text}
        .saveLabel=${'Save'}
        .error=${this.error}
        @note-submit=${(event: CustomEvent<string>) => this.request({ type: 'edit', id: a.id, text: event.detail })}
        @note-cancel=${() => this.close()}
      ></tandem-note-input>`;
    }
    const sent = this.sentText;
    if (sent === null || sent === a.turns[0].text) return html`<p class="card-text">${a.turns[0].text}</p>`;
    return html`<p class="card-text">${a.turns[0].text}</p>
      <p class="card-edited">Edited after it was sent. The agent got: “${sent}”</p>`;
  }

  /** On an instruction made from a reason for discarding: what the discarded run had proposed. */
  private renderDiscarded() {
    const a = this.annotation;
    if (a.kind !== 'instruction' || a.discardedChange === undefined) return '';
    const shown = this.discardedText ?? a.discardedChange;
    const change = shown === '' ? 'deleted this text' : html`<del>${shown}</del>`;
    return html`<p class="card-discarded">Discarded change: ${change}</p>`;
  }

  private renderLinks() {
    const a = this.annotation;
    const source = this.source;
    if (a.kind === 'instruction' && a.fromCommentId) {
      return html`<p class="card-link">
        From a comment
        ${source ? html`<button type="button" class="link-button" @click=${() => this.goTo(source.id)}>Show the comment</button>` : html`(since removed)`}
      </p>`;
    }
    if (a.kind === 'comment' && this.derived.length > 0) {
      return html`<p class="card-link">
        Turned into an instruction
        ${this.derived.map(
          (each) => html`<button type="button" class="link-button" @click=${() => this.goTo(each.id)}>Show the instruction</button>`,
        )}
      </p>`;
    }
    return '';
  }

  private renderActions() {
    const a = this.annotation;
    const rights = this.rights();
    if (this.mode === 'reply') {
      return html`<tandem-note-input
        .label=${'Reply'}
        .saveLabel=${'Reply'}
        .error=${this.error}
        @note-submit=${(event: CustomEvent<string>) => this.request({ type: 'reply', id: a.id, text: event.detail })}
        @note-cancel=${() => this.close()}
      ></tandem-note-input>`;
    }
    if (this.mode === 'edit') return '';
    const buttons = [];
    if (a.kind === 'comment') {
      if (rights.reply && !a.resolved) buttons.push(this.button('Reply', () => this.open('reply')));
      if (rights.resolve) {
        buttons.push(
          a.resolved
            ? this.button('Reopen', () => this.request({ type: 'reopen', id: a.id }))
            : this.button('Resolve', () => this.request({ type: 'resolve', id: a.id })),
        );
      }
      if (rights.manageInstructions && this.derived.length === 0) {
        buttons.push(this.button('Turn into an instruction', () => this.request({ type: 'escalate', id: a.id })));
      }
    } else if (rights.manageInstructions) {
      if (a.state === 'draft') buttons.push(this.button('Mark ready', () => this.request({ type: 'ready', id: a.id })));
      if (a.state === 'queued' || a.state === 'draft') buttons.push(this.button('Edit', () => this.open('edit')));
      if (a.state !== 'sent') buttons.push(this.button('Delete', () => this.request({ type: 'delete', id: a.id })));
    }
    return html`${this.error ? html`<p class="note-error" role="alert">${this.error}</p>` : ''}
    ${buttons.length ? html`<div class="card-actions">${buttons}</div>` : ''}`;
  }

  private button(label: string, action: () => void) {
    return html`<button type="button" class="card-action" @click=${action}>${label}</button>`;
  }

  private open(mode: 'reply' | 'edit') {
    this.mode = mode;
    this.error = '';
  }

  private close() {
    this.mode = 'view';
    this.error = '';
    void this.updateComplete.then(() => this.querySelector<HTMLElement>('.card-quote, article')?.focus());
  }

  /** A click anywhere on the card but its controls selects the annotated text. */
  private onClick(event: MouseEvent) {
    const control = (event.target as Element).closest('button, textarea, input, a, tandem-note-input');
    if (!control) this.select();
  }

  private select() {
    this.request({ type: 'select', id: this.annotation.id });
  }

  private goTo(id: string) {
    this.request({ type: 'select', id });
  }

  private request(request: AnnotationRequest) {
    const result = (this.perform ?? notOpen)(request);
    if (!result.ok) {
      this.error = result.error.message;
      return;
    }
    if (request.type === 'reply' || request.type === 'edit') this.close();
  }
}

customElements.define('tandem-annotation-card', TandemAnnotationCard);
