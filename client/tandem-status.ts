import { LitElement, html } from 'lit';
import type { ConnectionStatus } from './doc-connection.ts';

const hints: Record<ConnectionStatus, string> = {
  Connected: 'All changes are saved on the server.',
  Syncing: 'Exchanging changes with the server.',
  Offline: 'Changes are kept on this device and sent when the server is back.',
};

/** The connection indicator. Its status text is exactly `Connected`, `Syncing` or `Offline`. */
export class TandemStatus extends LitElement {
  static properties = { status: {} };
  declare status: ConnectionStatus;

  constructor() {
    super();
    this.status = 'Offline';
  }

  protected createRenderRoot() {
    return this;
  }

  render() {
    return html`<span class="status status-${this.status.toLowerCase()}" title=${hints[this.status]}>
      <span class="status-dot" aria-hidden="true"></span><span role="status">${this.status}</span>
    </span>`;
  }
}

customElements.define('tandem-status', TandemStatus);
