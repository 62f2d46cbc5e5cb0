import { html } from 'lit';
import { LightElement } from './light-element.ts';
import { ApiError, readSession } from './api.ts';
import { samePrincipal, type Session } from './session.ts';
import type { SessionView } from '../shared/wire/session.ts';

/** Fired with the offered token when the person chooses to switch to it. */
export const switchAccountEvent = 'switch-account';
/** Fired when the person keeps the current sign-in (or dismisses a refusal). */
export const keepAccountEvent = 'keep-account';

type Check = { state: 'checking' } | { state: 'offer'; who: SessionView } | { state: 'refused'; why: string };

/**
 * TOKEN6: the question a link's token raises on a device already signed in. The token is first
 * checked with the server (`GET /api/session`); a token it accepts for someone else is offered as
 * "Switch to NAME?" with `Switch to NAME` and `Stay signed in as CURRENT`; a token the server
 * refuses, or that cannot be checked, is said and dropped. A renewed link of the same principal
 * (id, role and document) switches without asking once the server accepts it.
 */
export class TandemSwitchPrompt extends LightElement {
  static properties = {
    current: { attribute: false },
    offered: { attribute: false },
    check: { state: true },
  };
  declare current: Session | null;
  declare offered: string | null;
  declare check: Check;
  private checked: string | null = null;

  constructor() {
    super();
    this.current = null;
    this.offered = null;
    this.check = { state: 'checking' };
  }

  protected willUpdate(): void {
    const offered = this.offered;
    if (offered === null || offered === this.checked) return;
    this.checked = offered;
    this.check = { state: 'checking' };
    readSession(offered).then(
      (who) => {
        if (offered !== this.offered) return;
        if (this.current && samePrincipal(this.current, offered)) this.decide(switchAccountEvent);
        else this.check = { state: 'offer', who };
      },
      (error: unknown) => {
        if (offered !== this.offered) return;
        const reason = error instanceof ApiError ? error : new ApiError('OFFLINE', 'The server cannot be reached.');
        const why = reason.code === 'OFFLINE' ? "The link's sign-in could not be checked: the server cannot be reached." : `The server refused the link's sign-in: ${reason.message}`;
        this.check = { state: 'refused', why };
      },
    );
  }

  private decide(event: typeof switchAccountEvent | typeof keepAccountEvent) {
    this.dispatchEvent(new CustomEvent(event, { detail: this.offered, bubbles: true, composed: true }));
  }

  render() {
    const current = this.current?.name ?? '';
    const check = this.check;
    if (this.offered === null || check.state === 'checking') return html``;
    if (check.state === 'refused') {
      return html`<div class="message error switch-prompt" role="alert">
        <p>${check.why} You are still signed in as ${current}.</p>
        <button type="button" @click=${() => this.decide(keepAccountEvent)}>Dismiss</button>
      </div>`;
    }
    const { who } = check;
    return html`<section class="message switch-prompt" role="dialog" aria-labelledby="switch-prompt-title">
      <h2 id="switch-prompt-title">Switch to ${who.name}?</h2>
      <p>This link signs in as ${who.name} (${who.role}). On this device you are signed in as ${current}
        (${this.current?.claims.role}); switching replaces that sign-in here.</p>
      <button type="button" class="primary" @click=${() => this.decide(switchAccountEvent)}>Switch to ${who.name}</button>
      <button type="button" @click=${() => this.decide(keepAccountEvent)}>Stay signed in as ${current}</button>
    </section>`;
  }
}

customElements.define('tandem-switch-prompt', TandemSwitchPrompt);
