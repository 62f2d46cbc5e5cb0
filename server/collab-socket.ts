import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Hocuspocus } from '@hocuspocus/server';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

export const collabPath = '/collab';

/**
 * Hands WebSocket upgrades at `/collab` to Hocuspocus; refuses upgrades anywhere else.
 * `close()` cuts every socket that is still open and stops the WebSocket server.
 */
export function attachCollabSocket(httpServer: HttpServer, hocuspocus: Hocuspocus) {
  const wss = new WebSocketServer({ noServer: true });

  wss.on('connection', (socket: WebSocket, req: IncomingMessage) => {
    const connection = hocuspocus.handleConnection(socket, toWebRequest(req));
    socket.on('message', (data: RawData) => connection.handleMessage(toBytes(data)));
    socket.on('close', (code: number, reason: Buffer) => connection.handleClose({ code, reason: reason.toString() }));
    socket.on('error', () => socket.terminate());
  });

  function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if ((req.url ?? '').split('?')[0] !== collabPath) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
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
function toWebRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return new Request(new URL(req.url ?? '/', 'http://localhost'), { headers });
}

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}
