import { html } from 'lit';
import { ContextConsumer } from '@lit/context';
import { LightElement } from './light-element.ts';
import { ApiError } from './api.ts';
import { sessionContext } from './session-context.ts';
import * as sharing from './sharing-api.ts';
import { describeInvite, expiryChoices, newInviteOf, roleChoices } from './sharing.ts';
import type { InviteView, PersonView } from '../shared/wire/invites.ts';

/**
 * `Share` (editors): a button opening a modal dialog to make a link per role with an optional
 * expiry and use limit (`Create link`, then `Copy link`), and to see and revoke the document's
 * links and remove its people (INV1, INV6). The server decides everything; this only asks.
 */
export class TandemShareDialog extends LightElement {
  static properties = {
    docId: {},
    open: { state: true },
    link: { state: true },
    invites: { state: true },
    people: { state: true },
    notice: { state: true },
    problem: { state: true },
  };
  declare docId: string;
  declare open: boolean;
  /** The link made last, shown until the dialog closes (the server never shows its code again). */
  declare link: string | null;
  declare invites: readonly InviteView[];
  declare people: readonly PersonView[];
  declare notice: string | null;
  declare problem: string | null;

  private readonly sessionFrom = new ContextConsumer(this, { context: sessionContext, subscribe: true });

  constructor() {
    super();
    this.docId = '';
    this.open = false;
    this.link = null;
    this.invites = [];
    this.people = [];
    this.notice = null;
    this.problem = null;
  }

  private get token(): string {
    return this.sessionFrom.value?.token ?? '';
  }

  render() {
    return html`<button type="button" class="share-button" aria-haspopup="dialog" @click=${this.show}>Share</button>
      <dialog class="share-dialog" aria-modal="true" aria-labelledby="share-dialog-title" @close=${() => (this.open = false)}>
        ${this.open ? this.renderContent() : ''}
      </dialog>`;
  }

  private renderContent() {
    return html`<h2 id="share-dialog-title">Share this document</h2>
      <form class="share-form" aria-label="New link" @submit=${this.onCreate}>
        <label>Role
          <select name="role">${roleChoices.map((each) => html`<option value=${each.role}>${each.label} — ${each.can}</option>`)}</select>
        </label>
        <label>Expires
          <select name="expires">${expiryChoices.map((each) => html`<option value=${each.expires}>${each.label}</option>`)}</select>
        </label>
        <label>Uses <input name="uses" inputmode="numeric" placeholder="any number" size="8" /></label>
        <button type="submit">Create link</button>
      </form>
      ${this.link
        ? html`<div class="share-link">
            <label>Invite link <input readonly .value=${this.link} @focus=${(event: FocusEvent) => (event.target as HTMLInputElement).select()} /></label>
            <button type="button" @click=${this.copy}>Copy link</button>
          </div>`
        : ''}
      ${this.notice ? html`<p class="message" role="status">${this.notice}</p>` : ''}
      ${this.problem ? html`<p class="message error" role="alert">${this.problem}</p>` : ''}
      <h3 id="share-links-title">Links</h3>
      <ul class="share-list" aria-labelledby="share-links-title">
        ${this.invites.map(
          (invite) => html`<li>
            <span>${describeInvite(invite)}</span>
            <button type="button" aria-label=${`Revoke ${describeInvite(invite)}`} @click=${() => this.revoke(invite)}>Revoke</button>
          </li>`,
        )}
      </ul>
      ${this.invites.length === 0 ? html`<p class="muted">No link admits anyone now.</p>` : ''}
      <h3 id="share-people-title">People</h3>
      <ul class="share-list" aria-labelledby="share-people-title">
        ${this.people.map(
          (person) => html`<li>
            <span>${person.name} <span class="muted">· ${person.role}</span></span>
            <button type="button" aria-label=${`Remove ${person.name}`} @click=${() => this.removePerson(person)}>Remove</button>
          </li>`,
        )}
      </ul>
      ${this.people.length === 0 ? html`<p class="muted">Nobody has joined by a link yet.</p>` : ''}
      <div class="dialog-buttons"><button type="button" @click=${() => this.dialog?.close()}>Close</button></div>`;
  }

  private get dialog(): HTMLDialogElement | null {
    return this.querySelector('dialog');
  }

  protected updated(): void {
    const dialog = this.dialog;
    if (this.open && dialog && !dialog.open) dialog.showModal();
  }

  private async show() {
    this.open = true;
    this.link = null;
    this.notice = null;
    this.problem = null;
    await this.refresh();
  }

  private async refresh() {
    await this.attempt(async () => {
      [this.invites, this.people] = await Promise.all([sharing.listInvites(this.token, this.docId), sharing.listPeople(this.token, this.docId)]);
    });
  }

  private async onCreate(event: SubmitEvent) {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const invite = newInviteOf({ role: String(form.get('role')), expires: String(form.get('expires')), uses: String(form.get('uses') ?? '') });
    if (typeof invite === 'string') {
      this.problem = invite;
      return;
    }
    await this.attempt(async () => {
      this.link = (await sharing.createInvite(this.token, this.docId, invite)).url;
      this.notice = 'Link created. Anyone with it can join as it says.';
    });
    await this.refresh();
  }

  private async copy() {
    if (!this.link) return;
    try {
      await navigator.clipboard.writeText(this.link);
      this.notice = 'Link copied.';
    } catch {
      this.notice = 'Copying was not allowed here: select the link and copy it.';
    }
  }

  private async revoke(invite: InviteView) {
    await this.attempt(async () => {
      await sharing.revokeInvite(this.token, invite.inviteId);
      this.notice = 'Link revoked: it admits nobody new.';
    });
    await this.refresh();
  }

  private async removePerson(person: PersonView) {
    await this.attempt(async () => {
      await sharing.removePerson(this.token, this.docId, person.subject);
      this.notice = `${person.name} was removed from this document.`;
    });
    await this.refresh();
  }

  private async attempt(work: () => Promise<void>) {
    this.problem = null;
    try {
      await work();
    } catch (error) {
      this.problem = error instanceof ApiError ? error.message : 'That did not work — try again.';
    }
  }
}

customElements.define('tandem-share-dialog', TandemShareDialog);
