import { html } from 'lit';
import type * as Y from 'yjs';
import { LightElement } from '../light-element.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { normalizePage } from '../../shared/page/page-model.ts';
import { newElementId, writePageSource } from '../../shared/page/page-source.ts';
import { browserPageTools } from './page-frame.ts';

/**
 * The page's source as a plain text box bound to the `html` Y.Text (PAGE11): what a person types
 * is written as the smallest character diff, what others type arrives live (the caret kept in
 * place), and when the box loses the focus the source is sanitized and new elements get their
 * ids (so they can be picked). Read-only for those who may not write the text.
 */
export class TandemPageSource extends LightElement {
  static properties = { ydoc: { attribute: false }, readOnly: { type: Boolean } };
  declare ydoc: Y.Doc | null;
  declare readOnly: boolean;

  private observed: Y.Text | null = null;
  /** The origin of this box's own writes, which it does not echo back. */
  private readonly origin = {};

  constructor() {
    super();
    this.ydoc = null;
    this.readOnly = true;
  }

  disconnectedCallback(): void {
    super.disconnectedCallback();
    this.observe(null);
  }

  protected willUpdate(): void {
    this.observe(this.ydoc ? docParts(this.ydoc).html : null);
  }

  protected updated(): void {
    const box = this.box;
    if (box && this.observed && box.value !== this.observed.toString() && document.activeElement !== box) box.value = this.observed.toString();
  }

  private get box(): HTMLTextAreaElement | null {
    return this.querySelector('textarea');
  }

  render() {
    return html`<details class="page-source">
      <summary>Source</summary>
      <textarea
        aria-label="Page source"
        rows="12"
        spellcheck="false"
        ?readonly=${this.readOnly}
        @input=${this.onInput}
        @blur=${this.onBlur}
      ></textarea>
    </details>`;
  }

  private observe(ytext: Y.Text | null) {
    if (this.observed === ytext) return;
    this.observed?.unobserve(this.onRemote);
    this.observed = ytext;
    ytext?.observe(this.onRemote);
  }

  private onInput() {
    if (this.readOnly || !this.ydoc || !this.box) return;
    writePageSource(this.ydoc, this.box.value, this.origin);
  }

  /** Sanitizes the source and gives new elements ids, as the server does for a new page (PAGE1). */
  private onBlur() {
    if (this.readOnly || !this.ydoc) return;
    const ytext = docParts(this.ydoc).html;
    const normalized = normalizePage(browserPageTools(), ytext.toString(), newElementId);
    if (normalized === ytext.toString()) return;
    writePageSource(this.ydoc, normalized, this.origin);
    if (this.box) this.box.value = normalized;
  }

  /** Someone else's edit: the box follows, the caret shifted by what was inserted or deleted before it. */
  private readonly onRemote = (event: Y.YTextEvent) => {
    const box = this.box;
    if (!box || event.transaction.origin === this.origin) return;
    let { selectionStart: start, selectionEnd: end } = box;
    let at = 0;
    for (const part of event.delta) {
      if (part.retain) at += part.retain;
      else if (typeof part.insert === 'string') {
        const length = part.insert.length;
        if (at <= start) start += length;
        if (at < end) end += length;
        at += length;
      } else if (part.delete) {
        if (at < start) start -= Math.min(part.delete, start - at);
        if (at < end) end -= Math.min(part.delete, end - at);
      }
    }
    box.value = (event.target as Y.Text).toString();
    if (document.activeElement === box) box.setSelectionRange(start, end);
  };
}

customElements.define('tandem-page-source', TandemPageSource);
