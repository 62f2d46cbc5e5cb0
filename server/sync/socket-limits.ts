import type { Extension, onAuthenticatePayload } from '@hocuspocus/server';
import { denialReasons } from '../../shared/protocol/denials.ts';
import type { SocketGate } from './collab-gate.ts';
import { ConnectionDenied, type Auth } from '../extensions/auth.ts';
import { extensionPriority } from './extension-priorities.ts';

/** The socket's gate, put into every connection's context by server/sync/collab-socket.ts. */
export interface GateContext {
  gate?: SocketGate;
}

/**
 * Tells a socket's gate who authenticated on it: denies a connection whose token subject
 * already has `socketsPerSubject` other sockets open (LIMIT3), and records for each document
 * whether the connection may write (LIMIT4). Runs after Auth, which refuses bad tokens and
 * tells it the principal it admitted (the token is not verified a second time). What
 * it recorded for a document outlives that document's connection (a later authentication
 * overwrites it): forgetting it in onDisconnect could race a quick re-authentication.
 */
export class SocketLimits implements Extension {
  extensionName = 'TandemSocketLimits';
  priority = extensionPriority.socketLimits;

  constructor(private readonly options: { auth: Pick<Auth, 'principalOf'> }) {}

  async onAuthenticate({ documentName, connectionConfig, context }: onAuthenticatePayload): Promise<void> {
    const gate = (context as GateContext).gate;
    if (!gate) return;
    const principal = this.options.auth.principalOf(connectionConfig);
    if (!principal) return;
    if (!gate.admitSubject(principal.sub)) throw new ConnectionDenied(denialReasons.tooManyConnections);
    gate.authenticated(documentName, connectionConfig.readOnly);
  }
}
