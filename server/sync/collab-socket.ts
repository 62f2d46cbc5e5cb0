import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Hocuspocus } from '@hocuspocus/server';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { SocketCounts, SocketGate } from './collab-gate.ts';
import type { FreshSync } from './fresh-sync.ts';
import type { GateContext } from './socket-limits.ts';
import { Outbox } from './outbox.ts';
import { oldestSupportedProtocol, protocolRefusal } from '../../shared/protocol/protocol-version.ts';
import { serveYjsSocket, yjsDocumentName, yjsToken } from './yjs-socket.ts';

export const collabPath = '/collab';

export interface CollabSocketOptions {
  hocuspocus: Hocuspocus;
  counts: SocketCounts;
  freshSync: FreshSync;
  /** The oldest client protocol served; `oldestSupportedProtocol` if left out. */
  oldestProtocol?: number;
}

/**
 * Hands WebSocket upgrades at `/collab` to Hocuspocus, and those at `/yjs/<document>` to the
 * y-websocket bridge (server/sync/yjs-socket.ts); refuses upgrades anywhere else, and
 * from an address with `socketsPerIp` sockets open. Every frame passes the socket's gate
 * (server/sync/collab-gate.ts) before Hocuspocus reads it, and then `freshSync`, which substitutes the
 * sync step 1 of a peer that holds nothing (DUR6); a frame over `maxMessageBytes` closes the
 * socket with 1009 (ws's `maxPayload`, LIMIT1). A client older than `oldestProtocol` is closed
 * with PROTOCOL_OUTDATED before Hocuspocus sees it (VER3). `close()` cuts every socket that is
 * still open and stops the WebSocket server.
 */
export function attachCollabSocket(httpServer: HttpServer, { hocuspocus, counts, freshSync, oldestProtocol = oldestSupportedProtocol }: CollabSocketOptions) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: counts.limits.maxMessageBytes });

  wss.on('connection', (socket: WebSocket, req: IncomingMessage, gate: SocketGate) => {
    const context: GateContext = { gate };
    const connection = hocuspocus.handleConnection(new Outbox(socket), toWebRequest(req), context);
    socket.on('message', (data: RawData) => {
      const frame = toBytes(data);
      const verdict = gate.inspect(frame);
      if (verdict.action === 'pass') connection.handleMessage(freshSync.frame(frame));
      else if (verdict.action === 'close') socket.close(verdict.code, verdict.reason);
    });
    socket.on('close', (code: number, reason: Buffer) => {
      gate.close();
      connection.handleClose({ code, reason: reason.toString() });
    });
    socket.on('error', () => socket.terminate());
  });

  function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (req.url ?? '').split('?')[0];
    const yjsDocument = yjsDocumentName(path);
    if (path !== collabPath && yjsDocument === null) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    // VER3: the refusal is a WebSocket close, so that every client reads its code and reason
    // (an HTTP answer to the upgrade reaches a browser's WebSocket as a bare 1006).
    const refusal = protocolRefusal(new URL(req.url ?? '/', 'http://localhost'), oldestProtocol);
    if (refusal) {
      wss.handleUpgrade(req, socket, head, (ws) => ws.close(refusal.code, refusal.reason));
      return;
    }
    const gate = counts.open(req.socket.remoteAddress ?? '');
    if (!gate) {
      socket.end('HTTP/1.1 429 Too Many Requests\r\nRetry-After: 10\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    socket.once('close', () => gate.close());
    if (yjsDocument === null) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req, gate));
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const token = yjsToken(url, req.headers.authorization);
      // The token goes to Hocuspocus in the auth message only, never in the request hooks see.
      url.searchParams.delete('token');
      const request = toWebRequest(req, url);
      request.headers.delete('authorization');
      serveYjsSocket({ socket: ws, request, hocuspocus, gate, freshSync, documentName: yjsDocument, token, idleMs: counts.limits.idleSocketMs });
    });
  }
  httpServer.on('upgrade', onUpgrade);

  return {
    close(): Promise<void> {
      httpServer.off('upgrade', onUpgrade);
      for (const socket of wss.clients) socket.terminate();
      return new Promise((resolve) => wss.close(() => resolve()));
    },
  };
}

/** Hocuspocus hooks take a web Request: the upgrade's URL and headers. */
function toWebRequest(req: IncomingMessage, url = new URL(req.url ?? '/', 'http://localhost')): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return new Request(url, { headers });
}

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}
