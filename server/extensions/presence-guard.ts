import type { beforeHandleAwarenessPayload, Connection, Extension } from '@hocuspocus/server';
import { sanitizePresenceState } from '../../shared/protocol/presence.ts';
import type { AuthContext } from './auth.ts';
import { announcedClientIds } from '../sync/hocuspocus-internals.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';

/**
 * Makes the server the authority on presence (PRES1, PRES2, PRES3). A connection owns one awareness
 * client id per document (PRES2): the first it announces that no other connection of the document
 * owns. Every entry of an inbound awareness update for another id is dropped; the owned entry
 * is rewritten to the token's name and role, with only a valid colour, a short status and a
 * cursor kept (`sanitizePresenceState`). Hocuspocus removes the owned entry when the
 * connection closes, since it was added through that connection.
 *
 * Never throws: a throw would close the connection and log, and a hostile update deserves
 * neither; what is left of it (possibly nothing) is applied.
 */
export class PresenceGuard implements Extension {
  extensionName = 'TandemPresenceGuard';
  priority = extensionPriority.presenceGuard;

  private readonly owners = new WeakMap<Connection, number>();

  async beforeHandleAwareness({ connection, document, states }: beforeHandleAwarenessPayload): Promise<void> {
    if (!connection) return;
    const principal = (connection.context as Partial<AuthContext> | undefined)?.principal;
    const owner = principal ? this.ownerOf(connection, announcedClientIds(states), document.getConnections()) : undefined;
    for (const [clientId, state] of [...states]) {
      const sanitized = clientId === owner && principal ? sanitizePresenceState(state, principal) : null;
      if (sanitized) states.set(clientId, sanitized);
      else states.delete(clientId);
    }
  }

  private ownerOf(connection: Connection, announced: Iterable<number>, connections: Connection[]): number | undefined {
    const known = this.owners.get(connection);
    if (known !== undefined) return known;
    const taken = new Set<number>();
    for (const other of connections) {
      const id = other === connection ? undefined : this.owners.get(other);
      if (id !== undefined) taken.add(id);
    }
    for (const clientId of announced) {
      if (taken.has(clientId)) continue;
      this.owners.set(connection, clientId);
      return clientId;
    }
    return undefined;
  }
}

