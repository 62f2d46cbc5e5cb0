import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { DocConnection } from './doc-connection.ts';
import { canEditText, canWriteNotes, type Session } from './session.ts';

export interface ConnectionHost extends ReactiveControllerHost {
  docId: string;
  session: Session | null;
}

/**
 * Opens the DocConnection of its host's document while the host is connected, reopens it when
 * the document or the token changes, and closes it when the host leaves the page. The host
 * re-renders on every change of the connection's state.
 */
export class ConnectionController implements ReactiveController {
  connection: DocConnection | null = null;
  private key = '';
  private connected = false;

  constructor(private readonly host: ConnectionHost) {
    host.addController(this);
  }

  hostConnected(): void {
    this.connected = true;
    this.sync();
  }

  hostUpdate(): void {
    this.sync();
  }

  hostDisconnected(): void {
    this.connected = false;
    this.close();
  }

  private sync(): void {
    const { docId, session } = this.host;
    const key = this.connected && docId && session ? `${docId}\n${session.token}` : '';
    if (key === this.key) return;
    this.close();
    this.key = key;
    if (!key || !session) return;
    const { role } = session.claims;
    this.connection = new DocConnection({
      docId,
      token: session.token,
      canEdit: canEditText(role),
      canWriteNotes: canWriteNotes(role),
    });
    this.connection.addEventListener('change', this.onChange);
  }

  private close(): void {
    this.connection?.removeEventListener('change', this.onChange);
    this.connection?.destroy();
    this.connection = null;
    this.key = '';
  }

  private readonly onChange = () => this.host.requestUpdate();
}
