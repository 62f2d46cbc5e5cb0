import type { ServerResponse } from 'node:http';
import { stringifyWithRaw } from '../raw-json.ts';

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

export function sendReply(res: ServerResponse, reply: Reply, headers: Record<string, string> = {}): void {
  const body = 'json' in reply ? stringifyWithRaw(reply.json) : 'text' in reply ? reply.text : reply.bytes;
  const contentType = 'json' in reply ? 'application/json; charset=utf-8' : reply.contentType;
  res.writeHead(reply.status, {
    'Content-Type': contentType,
    'Content-Length': typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength,
    'Cache-Control': 'no-store',
    ...('json' in reply ? {} : reply.headers),
    ...headers,
  });
  res.end(body);
}
