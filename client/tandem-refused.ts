import { html } from 'lit';
import { LightElement } from './light-element.ts';
import { refusalWords, type TokenRefusal } from './token-refusal.ts';

/**
 * The one screen for a token the server refused (TOKEN7): what happened and what to do. It
 * replaces the document, its connection indicator included: the server was reached, so
 * nothing here is offline.
 */
export class TandemRefused extends LightElement {
  static properties = { refusal: {} };
  declare refusal: TokenRefusal;

  constructor() {
    super();
    this.refusal = 'invalid';
  }

  render() {
    const words = refusalWords[this.refusal];
    return html`<main class="signin refused">
      <h1>${words.heading}</h1>
      <p class="message error" role="alert">${words.happened}</p>
      <p>Whoever shared this document with you can make a new link for you. Anything you changed
        on this device before stays on it.</p>
      <p><a href="/">All documents</a></p>
    </main>`;
  }
}

customElements.define('tandem-refused', TandemRefused);
