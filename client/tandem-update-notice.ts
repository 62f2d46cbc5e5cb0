import { html } from 'lit';
import { LightElement } from './light-element.ts';

/** The words of the notice and its button; tests and people read exactly these. */
export const updateNoticeText = 'Tandem was updated — reload';
/** The same button when some of the app's code did not arrive (client/code-on-demand.ts). */
export const codeMissingText = 'Part of Tandem did not load — reload';

/**
 * VER4: says that this build is older than the server serves, or than the document's content
 * needs, or that some of its code did not arrive (`text`), as one button that reloads the page.
 * `beforeReload` resolves once every local edit is stored on the device, so that the reload
 * loses nothing and the edits merge after it.
 */
export class TandemUpdateNotice extends LightElement {
  static properties = { beforeReload: { attribute: false }, text: {} };
  declare beforeReload: () => Promise<void>;
  declare text: string;

  constructor() {
    super();
    this.beforeReload = async () => {};
    this.text = updateNoticeText;
  }

  render() {
    return html`<p class="message update-notice" role="alert">
      <button type="button" @click=${this.reload}>${this.text}</button>
    </p>`;
  }

  private readonly reload = async () => {
    await this.beforeReload();
    location.reload();
  };
}

customElements.define('tandem-update-notice', TandemUpdateNotice);
