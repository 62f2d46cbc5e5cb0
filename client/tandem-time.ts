import { html } from 'lit';
import { LightElement } from './light-element.ts';
import { fullTime, nextChangeIn, relativeTime } from './relative-time.ts';

/**
 * `<time datetime>` reading how long ago `at` was ("5 min ago"), the full time in its tooltip.
 * It renders itself again when the words may have changed, and only while it is on the page.
 */
export class TandemTime extends LightElement {
  static properties = { at: { type: Number } };
  declare at: number;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.at = 0;
  }

  disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  render() {
    const now = Date.now();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.requestUpdate(), nextChangeIn(this.at, now));
    const full = fullTime(this.at);
    return html`<time class="note-time" datetime=${new Date(this.at).toISOString()} title=${full}
      >${relativeTime(this.at, now)}</time
    >`;
  }
}

customElements.define('tandem-time', TandemTime);
