import { html } from 'lit';
import { LightElement } from './light-element.ts';
import { styleMap } from 'lit/directives/style-map.js';
import type { Peer } from './presence-controller.ts';

/**
 * Who is here: the names and colours of everyone with the document open. Names are text and a
 * colour is set only when it is `#rrggbb` (the controller drops any other), so a peer's
 * awareness state can add neither markup nor style declarations (PRES4).
 */
export class TandemPresence extends LightElement {
  static properties = { peers: { attribute: false } };
  declare peers: Peer[];

  constructor() {
    super();
    this.peers = [];
  }

  render() {
    return html`<ul class="presence" aria-label="Who is here">
      ${this.peers.map(
        (peer) => html`<li class="peer" data-client-id=${peer.clientId} title=${peer.role}>
          <span class="peer-dot" style=${styleMap({ background: peer.color ?? undefined })} aria-hidden="true"></span>
          <span class="peer-name">${peer.name}</span>${peer.self ? html`<span class="peer-self"> (you)</span>` : ''}
          ${peer.status ? html`<span class="peer-status">· ${peer.status}</span>` : ''}
        </li>`,
      )}
    </ul>`;
  }
}

customElements.define('tandem-presence', TandemPresence);
