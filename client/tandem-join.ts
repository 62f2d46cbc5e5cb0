import { html } from 'lit';
import { LightElement } from './light-element.ts';
import { ApiError } from './api.ts';
import { joinInvite } from './sharing-api.ts';
import { signInWith } from './session.ts';
import { docPath } from './router.ts';
import { decodeClaims } from '../shared/protocol/claims.ts';
import { maxPersonName } from '../shared/wire/invites.ts';

/**
 * The page of an invite's link (`/join#CODE`, INV4): asks the person's name (`Your name`,
 * `Join`), joins by the code, keeps the personal token the server mints on this device and
 * opens the document as them. The code is read from the fragment and taken out of the address
 * bar at once: browsers send a fragment to no server and in no `Referer`.
 */
export class TandemJoin extends LightElement {
  static properties = { busy: { state: true }, problem: { state: true } };
  declare busy: boolean;
  declare problem: string | null;
  private readonly code: string;

  constructor() {
    super();
    this.busy = false;
    this.problem = null;
    this.code = location.hash.slice(1);
    if (location.hash) history.replaceState(history.state, '', location.pathname + location.search);
  }

  render() {
    if (!this.code) {
      return html`<main class="signin"><h1>Join a document</h1>
        <p class="message error" role="alert">This invite link is incomplete — ask for a new link.</p></main>`;
    }
    return html`<main class="signin">
      <h1>Join a document</h1>
      <p>You were invited to a Tandem document. Others there will see the name you give.</p>
      <form class="join-form" @submit=${this.onSubmit}>
        <label for="join-name">Your name</label>
        <input id="join-name" name="name" autocomplete="name" required maxlength=${maxPersonName} ?disabled=${this.busy} />
        <button type="submit" ?disabled=${this.busy}>Join</button>
      </form>
      ${this.problem ? html`<p class="message error" role="alert">${this.problem}</p>` : ''}
    </main>`;
  }

  private async onSubmit(event: SubmitEvent) {
    event.preventDefault();
    const name = String(new FormData(event.target as HTMLFormElement).get('name') ?? '').trim();
    if (!name) {
      this.problem = 'Give a name to join with.';
      return;
    }
    this.busy = true;
    this.problem = null;
    try {
      const { token } = await joinInvite(this.code, name);
      await signInWith(token);
      const doc = decodeClaims(token)?.doc;
      // A fresh load: the app starts under the new sign-in, as it does after any switch.
      location.assign(doc ? docPath(doc) : '/');
    } catch (error) {
      this.busy = false;
      this.problem = error instanceof ApiError ? error.message : 'Joining failed — try again.';
    }
  }
}

customElements.define('tandem-join', TandemJoin);
