import { html, type ReactiveController, type ReactiveControllerHost } from 'lit';
import { AuthorshipAnswer } from '../shared/wire/authorship.ts';
import { request } from './api.ts';
import type { EditorController } from './editor-controller.ts';
import { authorAt, authorLabel } from './author-lookup.ts';

interface AuthorHost extends ReactiveControllerHost, HTMLElement {
  readonly connection: { docId: string; token: string } | null;
}

/** How long the text rests before a changed text's authorship is asked again. */
const refetchAfterMs = 400;

/**
 * WHO7: the `Show authors` toggle of an editor. While it is on, the host's text says who wrote
 * the piece under the mouse, or, without one, at the caret, in a status line beside the
 * toggle, from `GET /api/docs/:id/authorship` (asked again once the text rests after a change).
 * The host renders `render()` above the text.
 */
export class AuthorController implements ReactiveController {
  private on = false;
  private answer: AuthorshipAnswer | null = null;
  private answeredFor: unknown = null;
  private hovered: number | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly host: AuthorHost,
    private readonly editor: EditorController,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    this.host.addEventListener('mousemove', this.onMouseMove);
    this.host.addEventListener('mouseleave', this.onMouseLeave);
  }

  hostDisconnected(): void {
    this.host.removeEventListener('mousemove', this.onMouseMove);
    this.host.removeEventListener('mouseleave', this.onMouseLeave);
    clearTimeout(this.timer);
  }

  hostUpdated(): void {
    const doc = this.editor.state?.doc;
    if (!this.on || !doc || doc === this.answeredFor) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.fetch(), this.answer ? refetchAfterMs : 0);
  }

  render() {
    return html`<div class="author-bar">
      <button type="button" class="toolbar-button author-toggle" aria-pressed=${String(this.on)} @click=${this.toggle}>Show authors</button>
      ${this.on ? html`<span class="author-note" role="status" aria-live="polite">${this.note()}</span>` : ''}
    </div>`;
  }

  private note(): string {
    const state = this.editor.state;
    if (!state || !this.answer) return '';
    const by = authorAt(this.answer, state.doc, this.hovered ?? state.selection.from);
    return by ? authorLabel(by) : '';
  }

  private readonly toggle = () => {
    this.on = !this.on;
    if (!this.on) {
      this.answer = null;
      this.answeredFor = null;
      clearTimeout(this.timer);
    }
    this.host.requestUpdate();
  };

  private async fetch(): Promise<void> {
    const connection = this.host.connection;
    const doc = this.editor.state?.doc;
    if (!connection || !doc) return;
    this.answeredFor = doc;
    try {
      this.answer = await request(AuthorshipAnswer, connection.token, 'GET', `/api/docs/${encodeURIComponent(connection.docId)}/authorship`);
    } catch {
      // Offline or refused: the note stays as it was, and the next change asks again.
      this.answeredFor = null;
    }
    this.host.requestUpdate();
  }

  private readonly onMouseMove = (event: MouseEvent) => {
    const view = this.editor.view;
    if (!this.on || !view || !view.dom.contains(event.target as globalThis.Node)) return this.onMouseLeave();
    const hovered = view.posAtCoords({ left: event.clientX, top: event.clientY })?.pos ?? null;
    if (hovered === this.hovered) return;
    this.hovered = hovered;
    this.host.requestUpdate();
  };

  private readonly onMouseLeave = () => {
    if (this.hovered === null) return;
    this.hovered = null;
    this.host.requestUpdate();
  };
}
