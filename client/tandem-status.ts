import { html } from 'lit';
import { LightElement } from './light-element.ts';
import type { ConnectionStatus } from './doc-connection.ts';

const hints: Record<ConnectionStatus, string> = {
  Connected: 'All changes are saved on the server.',
  Syncing: 'Exchanging changes with the server.',
  Offline: 'Changes are kept on this device and sent when the server is back.',
};

/** The connection indicator. Its status text is exactly `Connected`, `Syncing` or `Offline`. */
export class TandemStatus extends LightElement {
  static properties = { status: {} };
  declare status: ConnectionStatus;

  constructor() {
    super();
    this.status = 'Offline';
  }

  render() {
    return html`<span class="status status-${this.status.toLowerCase()}" title=${hints[this.status]}>
      <span class="status-dot" aria-hidden="true"></span><span role="status">${this.status}</span>
    </span>`;
  }
}

customElements.define('tandem-status', TandemStatus);
