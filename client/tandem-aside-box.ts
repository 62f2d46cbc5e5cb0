import { html, nothing } from 'lit';
import { LightElement } from './light-element.ts';
import { ContextConsumer } from '@lit/context';
import { sessionContext } from './session-context.ts';
import { ApiError, askAside } from './api.ts';
import { asideRoute } from '../shared/protocol/aside-route.ts';
import type * as Y from 'yjs';
import { maxAsideTextLength, type AsideRecord } from '../shared/wire/asides.ts';
import { readAsides } from '../shared/protocol/aside-records.ts';
import { YDocReader } from './ydoc-reader.ts';

/** What the box says its text will do when sent (ASIDE2): the same rule as the server's. */
export function routeLabel(text: string, steer: boolean): string {
  return asideRoute(text, steer) === 'side' ? 'Asks on the side' : 'Steers the run';
}

/**
 * Asides while an agent works on a run (ASIDE1, ASIDE6): every aside of the run with who sent
 * it, where it went and the agent's answer as it streams in (everyone on the document sees
 * them), and for editors and commenters a textbox `Ask or steer`. Enter sends, Shift+Enter
 * starts a new line, Alt+Enter always steers; while something is typed the box says which it
 * will be. The last `handoff:` suggestion of this person's asides shows under the box, and Tab
 * takes it into the box, to be pinned as an instruction: while the box holds it as taken, Enter
 * does not send it (ASIDE11).
 */
export class TandemAsideBox extends LightElement {
  static properties = {
    runId: {},
    runsDoc: { attribute: false },
    canAsk: { type: Boolean },
    unanswered: { attribute: false },
    text: { state: true },
    problem: { state: true },
  };
  declare runId: string;
  /** The document's read-only runs Y.Doc, where the asides are mirrored (ASIDE6). */
  declare runsDoc: Y.Doc | null;
  declare canAsk: boolean;
  /** Told, in words for the person, of a question the run ended before answering (ASIDE8). */
  declare unanswered: ((notice: string) => void) | null;
  declare text: string;
  declare problem: string | null;

  private readonly mirrored = new YDocReader<readonly AsideRecord[]>(this, () => this.runsDoc, (ydoc) => readAsides(ydoc), []);
  private readonly sessionFrom = new ContextConsumer(this, { context: sessionContext, subscribe: true });
  /** The aside whose handoff this person took into the box (it is not offered again). */
  private taken: string | null = null;
  /** The handoff text taken into the box: while the box holds it, Enter does not send it. */
  private takenText: string | null = null;

  constructor() {
    super();
    this.runId = '';
    this.runsDoc = null;
    this.canAsk = false;
    this.unanswered = null;
    this.text = '';
    this.problem = null;
  }

  /** The asides of this box's run, oldest first. */
  private get asides(): readonly AsideRecord[] {
    return this.mirrored.value.filter((aside) => aside.runId === this.runId);
  }

  render() {
    const handoff = this.handoff();
    return html`<div class="aside-box">
      ${this.asides.length
        ? html`<ol class="aside-list" aria-label="Asides" aria-live="polite">
            ${this.asides.map((aside) => renderAside(aside))}
          </ol>`
        : ''}
      ${this.canAsk
        ? html`<div class="aside-input">
            <label class="visually-hidden" for="aside-text">Ask or steer</label>
            <textarea
              id="aside-text"
              rows="1"
              placeholder="Ask the agent (end with ?) or steer the run"
              maxlength=${maxAsideTextLength}
              aria-describedby="aside-route"
              .value=${this.text}
              @input=${(event: InputEvent) => (this.text = (event.target as HTMLTextAreaElement).value)}
              @keydown=${this.onKey}
            ></textarea>
            <p class="aside-route muted" id="aside-route">
              ${this.holdsHandoff()
                ? html`<span class="aside-route-label">${handoffLabel}</span>`
                : html`${this.text.trim() ? html`<span class="aside-route-label">${routeLabel(this.text, false)}</span> · ` : ''}Enter sends,
                    Alt+Enter steers`}
            </p>
            ${handoff
              ? html`<p class="aside-handoff">Suggested instruction: <span class="aside-handoff-text">${handoff.handoff}</span>
                  <span class="muted">(Tab takes it)</span></p>`
              : ''}
            ${this.problem ? html`<p class="message error" role="alert">${this.problem}</p>` : ''}
          </div>`
        : ''}
    </div>`;
  }

  /** The newest handoff suggested to this person that is not yet taken, or null. */
  private handoff(): AsideRecord | null {
    const me = this.sessionFrom.value?.session.claims.sub;
    const last = [...this.asides].reverse().find((aside) => aside.askedBy.id === me && aside.handoff);
    return last && last.asideId !== this.taken ? last : null;
  }

  private onKey(event: KeyboardEvent) {
    const box = event.target as HTMLTextAreaElement;
    if (event.key === 'Tab' && !event.shiftKey) {
      const handoff = this.handoff();
      if (!handoff?.handoff) return;
      event.preventDefault();
      this.taken = handoff.asideId;
      this.text = handoff.handoff;
      this.takenText = handoff.handoff;
      box.value = this.text;
      return;
    }
    if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    // A suggested instruction is pinned to the text, not sent as a steer by a reflex Enter;
    // Alt+Enter still steers with it on purpose.
    if (this.holdsHandoff() && !event.altKey) {
      this.problem = handoffLabel;
      return;
    }
    void this.send(box.value, event.altKey);
  }

  /** Whether the box holds a suggested instruction as it was taken (ASIDE11). */
  private holdsHandoff(): boolean {
    return this.takenText !== null && this.text.trim() === this.takenText.trim();
  }

  private async send(text: string, steer: boolean) {
    if (!text.trim()) return;
    this.text = '';
    this.takenText = null;
    this.problem = null;
    try {
      await askAside(this.sessionFrom.value?.token ?? '', this.runId, text, steer);
    } catch (error) {
      this.problem = error instanceof ApiError ? error.message : 'The aside could not be sent.';
      if (!this.text) this.text = text;
      // The run ended meanwhile (ASIDE8): the box and the mirrored aside go with it, so the page says it.
      if (error instanceof ApiError && error.code === 'RUN_NOT_ACTIVE') this.unanswered?.(`No answer to “${clip(text)}”: ${error.message}`);
    }
  }
}

/** What the box says while it holds a suggested instruction taken with Tab (ASIDE11). */
export const handoffLabel = 'A suggested instruction: select the text it is about and press Instruct to pin it (Alt+Enter steers with it)';

function clip(text: string): string {
  const line = text.trim().replace(/\s+/g, ' ');
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function routeText(aside: AsideRecord): string {
  if (aside.route === 'side') return 'Answered on the side';
  if (aside.route === 'agent') return aside.kind === 'steer' ? 'Sent to the run as a steer' : 'Went to the run as a steer';
  return aside.answer ? 'Answering…' : 'Waiting for the agent…';
}

function renderAside(aside: AsideRecord) {
  const cached = aside.cachedShare === null ? null : `${Math.round(aside.cachedShare * 100)}% of the prompt read from cache`;
  return html`<li class="aside route-${aside.route ?? 'pending'}" data-aside-id=${aside.asideId}>
    <p class="aside-question"><span class="aside-who">${aside.askedBy.name}:</span> <span class="aside-text">${aside.text}</span></p>
    <p class="aside-status muted">${routeText(aside)}${cached ? html` · <span class="aside-cache">${cached}</span>` : nothing}</p>
    ${aside.answer ? html`<p class="aside-answer">${aside.answer}</p>` : ''}
    ${aside.note ? html`<p class="aside-note">${aside.note}</p>` : ''}
  </li>`;
}

customElements.define('tandem-aside-box', TandemAsideBox);
