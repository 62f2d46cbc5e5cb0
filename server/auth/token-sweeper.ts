import type { Hocuspocus } from '@hocuspocus/server';
import { hasExpired, type Claims } from '../../shared/protocol/claims.ts';
import { denialReasons, tokenEndedCloseCode } from '../../shared/protocol/denials.ts';
import type { RevocationList } from '../store/sqlite-revocations.ts';

export { tokenEndedCloseCode };

/**
 * TOKEN4: closes the open WebSockets whose token was revoked (by `tandem revoke`, possibly from another
 * process) or has expired since the connection was admitted. Every `intervalMs` it reads the
 * revocations added since its last look and checks every open connection, so a revoked
 * connection is closed within about one interval. The provider then reconnects, and
 * authentication refuses it with the reason.
 */
export function startTokenSweeper(options: {
  hocuspocus: Hocuspocus;
  revocations: RevocationList;
  intervalMs?: number;
  onError: (error: unknown) => void;
}): { stop(): void } {
  const revoked = new Set<string>();
  let cursor = 0;
  let running = false;

  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const since = await options.revocations.revokedSince(cursor);
      cursor = since.cursor;
      for (const id of since.ids) revoked.add(id);
      const now = Date.now();
      for (const document of options.hocuspocus.documents.values()) {
        for (const connection of document.getConnections()) {
          const principal = (connection.context as { principal?: Claims }).principal;
          if (!principal) continue;
          if (principal.jti !== undefined && revoked.has(principal.jti)) {
            connection.webSocket.close(tokenEndedCloseCode, denialReasons.revokedToken);
          } else if (hasExpired(principal, now)) {
            connection.webSocket.close(tokenEndedCloseCode, denialReasons.expiredToken);
          }
        }
      }
    } catch (error) {
      options.onError(error);
    } finally {
      running = false;
    }
  };

  const timer = setInterval(() => void sweep(), options.intervalMs ?? 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
