import type { Hocuspocus, WebSocketLike } from '@hocuspocus/server';
import type { WebSocket } from 'ws';
import type { SocketGate } from './collab-gate.ts';
import type { FreshSync } from './fresh-sync.ts';
import type { GateContext } from './socket-limits.ts';
import { Outbox } from './outbox.ts';
import { addressedFrame, authFrame, fromHocuspocusFrame, toHocuspocusFrame, yMessageType } from './yjs-framing.ts';

export const yjsPathPrefix = '/yjs/';

const queryAwarenessFrame = Uint8Array.of(yMessageType.queryAwareness);

/**
 * The Hocuspocus document a `/yjs/…` upgrade names (`<docId>`, `<docId>/notes` or
 * `<docId>/runs`, percent-decoded), or null when the path names none. Whether the document
 * exists and the token may open it is the Auth extension's question, as on `/collab`.
 */
export function yjsDocumentName(path: string): string | null {
  if (!path.startsWith(yjsPathPrefix)) return null;
  try {
    const name = decodeURIComponent(path.slice(yjsPathPrefix.length));
    return name === '' ? null : name;
  } catch {
    return null;
  }
}

/** The token of a `/yjs` upgrade: `?token=`, else `Authorization: Bearer`; '' when neither. */
export function yjsToken(url: URL, authorization: string | undefined): string {
  const query = url.searchParams.get('token');
  if (query) return query;
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  return match ? match[1] : '';
}

/**
 * Serves one y-websocket peer (YWS1, YWS2) as a Hocuspocus connection to `documentName`: the
 * bridge authenticates with `token` on the peer's behalf, then translates every frame each way
 * (server/sync/yjs-framing.ts). The peer is an ordinary connection of the live document, so every
 * extension applies to it as to a `/collab` provider: authentication and read-only roles,
 * socket limits, the durable log, the notes guard on `<id>/notes` (YWS4), the presence guard
 * (YWS5), the audit log. Inbound frames pass the socket's gate (LIMIT1–LIMIT4) after
 * translation, as `/collab` frames do.
 */
export function serveYjsSocket(options: {
  socket: WebSocket;
  request: Request;
  hocuspocus: Hocuspocus;
  gate: SocketGate;
  /** Substitutes a step 1 of a client that holds nothing (DUR6). */
  freshSync: FreshSync;
  documentName: string;
  token: string;
  /** The server's idle timeout (`idleSocketMs`). */
  idleMs: number;
}): void {
  const { socket, gate, documentName } = options;
  const toPeer: WebSocketLike = {
    get readyState() {
      return socket.readyState;
    },
    send(data) {
      const outbound = fromHocuspocusFrame(data as Uint8Array);
      if (outbound.action === 'send') socket.send(outbound.frame);
      else if (outbound.action === 'close') {
        if (outbound.frame) socket.send(outbound.frame);
        closeSocket(socket, outbound.code, outbound.reason);
      }
    },
    close(code, reason) {
      closeSocket(socket, code, reason);
    },
  };
  const context: GateContext = { gate };
  const connection = options.hocuspocus.handleConnection(new Outbox(toPeer), options.request, context);
  connection.handleMessage(authFrame(documentName, options.token));

  // YWS6: a Yjs client that publishes no presence may stay silent for long; each pong to the
  // server's ping counts as a message for Hocuspocus's idle timeout (an awareness query, which
  // Hocuspocus answers with nothing on a connection). A client that is gone answers no ping.
  const keepAlive = setInterval(() => socket.ping(), Math.max(100, Math.floor(options.idleMs / 3)));
  keepAlive.unref();
  const activity = addressedFrame(documentName, queryAwarenessFrame);
  socket.on('pong', () => connection.handleMessage(activity));

  socket.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
    const frame = toHocuspocusFrame(documentName, toBytes(data));
    if (!frame) return;
    const verdict = gate.inspect(frame);
    if (verdict.action === 'pass') connection.handleMessage(options.freshSync.frame(frame));
    else if (verdict.action === 'close') socket.close(verdict.code, verdict.reason);
  });
  socket.on('close', (code: number, reason: Buffer) => {
    clearInterval(keepAlive);
    gate.close();
    connection.handleClose({ code, reason: reason.toString() });
  });
  socket.on('error', () => socket.terminate());
}

/**
 * A WebSocket close reason is at most 123 bytes of UTF-8: a longer one is cut. A code that may
 * not be sent (ws throws on it) ends the socket without a close frame.
 */
function closeSocket(socket: WebSocket, code: number | undefined, reason: string | undefined): void {
  let cut = reason ?? '';
  while (Buffer.byteLength(cut) > 123) cut = cut.slice(0, -1);
  try {
    socket.close(code, cut);
  } catch {
    socket.terminate();
  }
}

function toBytes(data: Buffer | ArrayBuffer | Buffer[]): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}
