import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { DocConnection } from './doc-connection.ts';
import type { SessionInfo } from './session-context.ts';

export interface ConnectionHost extends ReactiveControllerHost {
  docId: string;
  readonly sessionInfo: SessionInfo | null;
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
    const { docId, sessionInfo } = this.host;
    const key = this.connected && docId && sessionInfo ? `${docId}\n${sessionInfo.token}` : '';
    if (key === this.key) return;
    this.close();
    this.key = key;
    if (!key || !sessionInfo) return;
    this.connection = new DocConnection({
      docId,
      token: sessionInfo.token,
      canEdit: sessionInfo.may('edit-text'),
      canWriteNotes: sessionInfo.may('write-notes'),
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
