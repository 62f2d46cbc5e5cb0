import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Awareness } from 'y-protocols/awareness';
import type { DocConnection } from './doc-connection.ts';
import type { Session } from './session.ts';
import { readPresenceUser } from '../shared/protocol/presence.ts';

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
 * of everyone present (this person first), for the host to render.
 */
export class PresenceController implements ReactiveController {
  peers: Peer[] = [];
  private awareness: Awareness | null = null;
  private published = '';
  private shown = '';

  constructor(
    private readonly host: PresenceHost,
    private readonly connection: () => DocConnection | null,
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
    const user = { name: session.name, color: session.color, role: session.claims.role };
    const key = JSON.stringify(user);
    if (key === this.published) return;
    this.published = key;
    this.awareness.setLocalStateField('user', user);
    this.refresh();
  }

  private readonly refresh = () => {
    const awareness = this.awareness;
    if (!awareness) return;
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
