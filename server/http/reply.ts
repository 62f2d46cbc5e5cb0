import type { ServerResponse } from 'node:http';
import { jsonPieces } from '../raw-json.ts';

/** What a route answers; the API boundary writes it. `headers` are a route's own (an export's Content-Disposition). */
export type Reply =
  | { status: number; json: unknown }
  | { status: number; text: string; contentType: string; headers?: Record<string, string> }
  | { status: number; bytes: Uint8Array; contentType: string; headers?: Record<string, string> };

export function json(status: number, body: unknown): Reply {
  return { status, json: body };
}

export function text(status: number, body: string, contentType = 'text/plain; charset=utf-8', headers?: Record<string, string>): Reply {
  return { status, text: body, contentType, headers };
}

export function bytes(status: number, body: Uint8Array, contentType: string, headers?: Record<string, string>): Reply {
  return { status, bytes: body, contentType, headers };
}

/**
 * Writes `reply`. A body of more than `sliceChars` characters (a large document's blocks or
 * Markdown) is written a slice at a time, each slice encoded and handed to the socket in a turn
 * of its own, at most about a megabyte waiting for the socket (LIMIT10): written at once, its
 * encoding and copy held the event loop for tens of milliseconds.
 */
export function sendReply(res: ServerResponse, reply: Reply, headers: Record<string, string> = {}): void {
  const body = 'json' in reply ? jsonPieces(reply.json) : 'text' in reply ? [reply.text] : reply.bytes;
  const contentType = 'json' in reply ? 'application/json; charset=utf-8' : reply.contentType;
  res.writeHead(reply.status, {
    'Content-Type': contentType,
    'Content-Length': Array.isArray(body) ? body.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0) : body.byteLength,
    'Cache-Control': 'no-store',
    ...('json' in reply ? {} : reply.headers),
    ...headers,
  });
  if (!Array.isArray(body)) res.end(body);
  else if (body.every((piece) => piece.length <= sliceChars)) res.end(body.join(''));
  else void writeInSlices(res, body);
}

/** Characters of a body written in one turn. */
export const sliceChars = 64 * 1024;

/** Bytes of a body left waiting for the socket before no more is written until it drains. */
const queuedBytes = 1024 * 1024;

async function writeInSlices(res: ServerResponse, pieces: string[]): Promise<void> {
  for (const piece of pieces) {
    for (let start = 0; start < piece.length; ) {
      let end = Math.min(piece.length, start + sliceChars);
      // A surrogate pair stays in one slice: apart, each half would be written as U+FFFD.
      if (end < piece.length && isHighSurrogate(piece.charCodeAt(end - 1))) end--;
      if (res.destroyed) return;
      res.write(piece.slice(start, end));
      start = end;
      // The next slice in a later turn; once a few are waiting for the socket, when it drains.
      await (res.writableLength < queuedBytes ? new Promise((resolve) => setImmediate(resolve)) : drained(res));
    }
  }
  if (!res.destroyed) res.end();
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Resolves when the socket wants more, or when the answer can no longer be written. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
