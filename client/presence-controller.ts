import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Awareness } from 'y-protocols/awareness';
import type { DocConnection } from './doc-connection.ts';
import type { Session } from './session.ts';
import { readPresenceUser } from '../shared/protocol/presence.ts';
import { colorAmong } from './presence-colors.ts';

/** The event (detail: `#rrggbb`) by which a document's view tells the app bar this person's colour there. */
export const ownColorEvent = 'own-color';

/** One person (or agent) with the document open, as awareness tells it. */
export interface Peer {
  clientId: number;
  name: string;
  /** `#rrggbb`, or null when the peer published none that is valid. */
  color: string | null;
  role: string;
  /** What the peer says it is doing (agents: `working on 2 instructions`), or null. */
  status: string | null;
  self: boolean;
}

export interface PresenceHost extends ReactiveControllerHost {
  session: Session | null;
}

/**
 * Publishes this person's `user: {name, color, role}` in awareness and keeps `peers`, the list
 * of everyone present (this person first), for the host to render. The colour published is the
 * person's preferred one unless someone present before them holds it (PRES7,
 * client/presence-colors.ts): it is chosen again whenever the people present change.
 */
export class PresenceController implements ReactiveController {
  peers: Peer[] = [];
  private awareness: Awareness | null = null;
  private published = '';
  private shown = '';

  constructor(
    private readonly host: PresenceHost,
    private readonly connection: () => DocConnection | null,
    /** Told each colour this person publishes, once it changes (the app bar shows the same one). */
    private readonly onOwnColor: (color: string) => void = () => {},
  ) {
    host.addController(this);
  }

  hostUpdated(): void {
    const awareness = this.connection()?.awareness ?? null;
    if (awareness !== this.awareness) {
      this.awareness?.off('change', this.refresh);
      this.awareness = awareness;
      this.published = '';
      this.shown = '';
      awareness?.on('change', this.refresh);
    }
    this.publish();
  }

  hostDisconnected(): void {
    this.awareness?.off('change', this.refresh);
    this.awareness = null;
    this.peers = [];
  }

  private publish(): void {
    const { session } = this.host;
    if (!this.awareness || !session) return;
    const user = { name: session.name, color: this.colorFor(session, this.awareness), role: session.claims.role };
    const key = JSON.stringify(user);
    if (key === this.published) return;
    this.published = key;
    this.awareness.setLocalStateField('user', user);
    this.onOwnColor(user.color);
    this.refresh();
  }

  /** PRES7: the colours of the peers before this client (smaller client ids) are theirs to keep. */
  private colorFor(session: Session, awareness: Awareness): string {
    const before: string[] = [];
    awareness.getStates().forEach((state, clientId) => {
      const color = clientId < awareness.clientID ? readPresenceUser(state)?.color : undefined;
      if (color) before.push(color);
    });
    return colorAmong(session.claims.sub, before);
  }

  private readonly refresh = () => {
    const awareness = this.awareness;
    if (!awareness) return;
    // Someone came or went: this person's colour may have to change, or may return.
    this.publish();
    const peers: Peer[] = [];
    awareness.getStates().forEach((state, clientId) => {
      const user = readPresenceUser(state);
      if (!user) return;
      peers.push({
        clientId,
        name: user.name,
        color: user.color ?? null,
        role: user.role,
        status: user.status ?? null,
        self: clientId === awareness.clientID,
      });
    });
    peers.sort((a, b) => Number(b.self) - Number(a.self) || a.name.localeCompare(b.name));
    // Awareness also changes on every cursor move; re-render only when the people change.
    const shown = JSON.stringify(peers);
    if (shown === this.shown) return;
    this.shown = shown;
    this.peers = peers;
    this.host.requestUpdate();
  };
}
