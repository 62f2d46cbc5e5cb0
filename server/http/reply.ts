import type { ServerResponse } from 'node:http';
import { RawJson } from '../raw-json.ts';

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
  const body = 'json' in reply ? stringify(reply.json) : reply.text;
  const contentType = 'json' in reply ? 'application/json; charset=utf-8' : reply.contentType;
  res.writeHead(reply.status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(body);
}

/** `JSON.stringify(value)`, with each RawJson in it written as its text. */
function stringify(value: unknown): string {
  const raws: string[] = [];
  const mark = `\u0000raw${Math.random().toString(36).slice(2)}:`;
  const text = JSON.stringify(value, (_key, item: unknown) => (item instanceof RawJson ? `${mark}${raws.push(item.text) - 1}` : item));
  if (raws.length === 0) return text;
  const placeholder = new RegExp(`"${JSON.stringify(mark).slice(1, -1).replace(/\\/g, '\\\\')}(\\d+)"`, 'g');
  return text.replace(placeholder, (_match, index: string) => raws[Number(index)]);
}
