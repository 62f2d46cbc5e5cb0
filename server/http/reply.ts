import type { ServerResponse } from 'node:http';
import { stringifyWithRaw } from '../raw-json.ts';

/** What a route answers; the API boundary writes it. */
export type Reply =
  | { status: number; json: unknown }
  | { status: number; text: string; contentType: string };

export function json(status: number, body: unknown): Reply {
  return { status, json: body };
}

export function text(status: number, body: string, contentType = 'text/plain; charset=utf-8'): Reply {
  return { status, text: body, contentType };
}

export function sendReply(res: ServerResponse, reply: Reply, headers: Record<string, string> = {}): void {
  const body = 'json' in reply ? stringifyWithRaw(reply.json) : reply.text;
  const contentType = 'json' in reply ? 'application/json; charset=utf-8' : reply.contentType;
  res.writeHead(reply.status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(body);
}

