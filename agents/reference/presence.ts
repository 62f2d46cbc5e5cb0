import * as Y from 'yjs';
import WebSocket from 'ws';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import { withProtocolVersion } from '../../shared/protocol/protocol-version.ts';

/** What an agent shows of itself in a document's awareness while it works (PRES6). */
export interface AgentPresence {
  /** Resolves once the presence is visible (or after `readyTimeoutMs`, whichever is first). */
  ready: Promise<void>;
  /** Disconnects; the agent disappears from the document's awareness. */
  leave(): void;
}

export const referenceAgentColor = '#7c3aed';

const readyTimeoutMs = 2000;

/**
 * `ws` emits an 'error' event when a socket is closed before it connected (a presence left at
 * once, when a run ends as soon as it is claimed); with no listener that throws and ends the
 * process. The provider learns of the failure from the close event anyway.
 */
class PresenceSocket extends WebSocket {
  constructor(...args: ConstructorParameters<typeof WebSocket>) {
    super(...args);
    this.on('error', () => {});
  }
}

/**
 * Joins `<docId>` as a Yjs peer (read-only, as every agent connection is: it changes nothing
 * through it) and sets awareness `user: {name, role: 'agent', color, status}`, so people see
 * which agent is working and on how much. Best effort: a failure to connect never stops the run.
 */
export function showPresence(options: { url: string; token: string; docId: string; name: string; status: string }): AgentPresence {
  const websocketProvider = new HocuspocusProviderWebsocket({
    url: withProtocolVersion(options.url.replace(/^http/, 'ws').replace(/\/+$/, '') + '/collab'),
    WebSocketPolyfill: PresenceSocket,
  });
  const provider = new HocuspocusProvider({
    websocketProvider,
    name: options.docId,
    document: new Y.Doc(),
    token: options.token,
  });
  provider.setAwarenessField('user', { name: options.name, role: 'agent', color: referenceAgentColor, status: options.status });
  const ready = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, readyTimeoutMs);
    provider.on('synced', () => {
      clearTimeout(timer);
      resolve();
    });
    provider.on('authenticationFailed', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  provider.attach();
  return {
    ready,
    leave() {
      provider.destroy();
      websocketProvider.destroy();
    },
  };
}
