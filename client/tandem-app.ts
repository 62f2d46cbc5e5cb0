import { html, type PropertyValues } from 'lit';
import { LightElement } from './light-element.ts';
import { ContextProvider } from '@lit/context';
import { repeat } from 'lit/directives/repeat.js';
import { styleMap } from 'lit/directives/style-map.js';
import { announceEvent } from './run-announcer.ts';
import { RouterController, docPath, navigate } from './router.ts';
import { linkProblem, openSession, sessionExpired, switchSession, takeTokenFromAddress, type Session } from './session.ts';
import { sessionContext, sessionInfo } from './session-context.ts';
import { registerServiceWorker } from './sw-register.ts';
import { ownColorEvent } from './presence-controller.ts';
import './tandem-doc-view.ts';
import { codeMissingText } from './tandem-update-notice.ts';
import { CodeMissingController, onDemand } from './code-on-demand.ts';


const loadSwitchPrompt = onDemand(() => import('./tandem-switch-prompt.ts'));
const loadDocList = onDemand(() => import('./tandem-doc-list.ts'));
const loadJoin = onDemand(() => import('./tandem-join.ts'));
/** How many announcements the live region keeps (older ones have been read out). */
const keptAnnouncements = 3;

/**
 * The app: the session of this device, provided to the page as `sessionContext`
 * (client/session-context.ts), the page for the current address, and the app's one
 * polite live region (`.announcer`), which says each sentence an `announce` event from the page
 * brings (e.g. a run accepted by someone else, client/run-announcer.ts).
 */
export class TandemApp extends LightElement {
  static properties = {
    session: { state: true },
    ready: { state: true },
    badLink: { state: true },
    offered: { state: true },
    announcements: { state: true },
    ownColor: { state: true },
  };
  declare session: Session | null;
  declare ready: boolean;
  /** What was wrong with the token of the address bar, if anything. */
  declare badLink: 'unreadable' | 'expired' | null;
  /** A link's token that would replace this device's sign-in, until the person decides (TOKEN6). */
  declare offered: string | null;
  /** The latest sentences for the live region, each with its own key so that each is new to it. */
  declare announcements: readonly { key: number; text: string }[];
  /** This person's colour in the open document (PRES7 may give them another than their preferred one). */
  declare ownColor: { docId: string; color: string } | null;
  private announced = 0;

  private readonly router = new RouterController(this);
  private readonly code = new CodeMissingController(this);
  private readonly sessionProvider = new ContextProvider(this, { context: sessionContext, initialValue: null });

  constructor() {
    super();
    this.session = null;
    this.ready = false;
    this.badLink = null;
    this.offered = null;
    this.announcements = [];
    this.ownColor = null;
    this.addEventListener(ownColorEvent, (event) => {
      const route = this.router.route;
      if (route.name === 'doc') this.ownColor = { docId: route.docId, color: (event as CustomEvent<string>).detail };
    });
    this.addEventListener(announceEvent, (event) => this.announce((event as CustomEvent<string>).detail));
  }

  private announce(text: string) {
    this.announced += 1;
    this.announcements = [...this.announcements, { key: this.announced, text }].slice(-keptAnnouncements);
  }

  connectedCallback(): void {
    super.connectedCallback();
    const fromAddress = takeTokenFromAddress();
    this.badLink = linkProblem(fromAddress);
    openSession(fromAddress)
      .then(({ session, offered }) => {
        this.session = session;
        this.offered = offered;
        // The prompt (and the API client it checks the token with) loads only when a link asks.
        if (offered) void loadSwitchPrompt();
        const doc = session?.claims.doc;
        if (doc && this.router.route.name === 'list') navigate(docPath(doc), { replace: true });
      })
      .catch(() => (this.session = null))
      .finally(() => (this.ready = true));
  }

  protected willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('session')) this.sessionProvider.setValue(this.session ? sessionInfo(this.session) : null);
  }

  protected updated(): void {
    // A document's view registers the worker once its text is there; any other page at once.
    if (this.ready && !this.querySelector('tandem-doc-view')) registerServiceWorker();
  }

  render() {
    if (!this.ready) return html``;
    return html`<div class="announcer visually-hidden" aria-live="polite">
        ${repeat(
          this.announcements,
          (each) => each.key,
          (each) => html`<p>${each.text}</p>`,
        )}
      </div>
      <div class="app-bar">
        <a class="brand" href="/">Tandem</a>
        ${this.session
          ? html`<span class="me">
              <span class="peer-dot" style=${styleMap({ background: this.shownColor(this.session) })} aria-hidden="true"></span>
              ${this.session.name} <span class="muted">· ${this.session.claims.role}</span>
            </span>`
          : ''}
      </div>
      ${this.offered
        ? html`<tandem-switch-prompt
            .current=${this.session}
            .offered=${this.offered}
            @switch-account=${this.onSwitch}
            @keep-account=${() => (this.offered = null)}
          ></tandem-switch-prompt>`
        : ''}
      ${this.renderPage()}`;
  }

  /** The colour others see for this person: the one of the open document, else their preferred one. */
  private shownColor(session: Session): string {
    const route = this.router.route;
    const own = this.ownColor;
    return route.name === 'doc' && own?.docId === route.docId ? own.color : session.color;
  }

  /** The person took the link's sign-in: the page starts again under it, as a fresh load would. */
  private async onSwitch(event: CustomEvent<string>) {
    if (!this.session) return;
    await switchSession(event.detail);
    location.reload();
  }

  private renderPage() {
    const route = this.router.route;
    if (route.name === 'join') {
      // An invite needs no sign-in of this device: it makes one.
      void loadJoin();
      return html`<tandem-join></tandem-join>`;
    }
    const session = this.session;
    const expired = session !== null && sessionExpired(session);
    if (!session || expired) {
      const problem = expired ? 'expired' : this.badLink;
      return html`<main class="signin">
        <h1>Sign in to Tandem</h1>
        ${problem === 'expired' ? html`<p class="message error" role="alert">Your link has expired — ask for a new one.</p>` : ''}
        ${problem === 'unreadable' ? html`<p class="message error" role="alert">The link's token could not be read.</p>` : ''}
        <p>Open the link printed by <code>npm start</code> in the terminal. It looks like
          <code>http://127.0.0.1:8787/?token=…</code> and signs this browser in.</p>
      </main>`;
    }
    if (route.name === 'list') {
      // The list is another page: its code (and the API client's) loads when it is shown.
      void loadDocList();
      return html`${this.code.missing ? html`<tandem-update-notice .text=${codeMissingText}></tandem-update-notice>` : ''}
        <tandem-doc-list></tandem-doc-list>`;
    }
    if (route.name === 'doc') return html`<tandem-doc-view .docId=${route.docId}></tandem-doc-view>`;
    return html`<main class="signin"><h1>Page not found</h1><p><a href="/">See all documents</a></p></main>`;
  }
}

customElements.define('tandem-app', TandemApp);
