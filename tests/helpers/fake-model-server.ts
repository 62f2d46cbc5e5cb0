import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A step of a fake model's script: a reply, or a reply made (perhaps after doing something else) from the request's body. */
export type ScriptStep<Body, Reply> = Reply | ((body: Body) => Reply | Promise<Reply>);

export interface ScriptedServer<Body> {
  /** `http://127.0.0.1:PORT`, without a trailing slash. */
  origin: string;
  /** Every request received on `path`, in order. */
  requests: { headers: IncomingHttpHeaders; body: Body }[];
  close(): Promise<void>;
}

/**
 * The server under a fake model provider (fake-openai.ts, fake-anthropic.ts) on 127.0.0.1: it
 * takes JSON POSTs on `path`, records each, and answers it with the next step of `script`
 * through `reply`; another route, or a request after the script ran out, gets `refuse` (the
 * provider's own error format).
 */
export async function startScriptedServer<Body, Reply>(options: {
  path: string;
  script: ScriptStep<Body, Reply>[];
  reply(response: ServerResponse, reply: Reply, body: Body): void;
  refuse(response: ServerResponse, status: number, message: string): void;
}): Promise<ScriptedServer<Body>> {
  const requests: ScriptedServer<Body>['requests'] = [];
  let next = 0;
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', async () => {
      if (request.method !== 'POST' || request.url !== options.path) {
        return options.refuse(response, 404, `No route ${request.method} ${request.url}`);
      }
      const body = JSON.parse(raw) as Body;
      requests.push({ headers: request.headers, body });
      const step = options.script[next++];
      if (step === undefined) return options.refuse(response, 500, 'The fake model has no more script.');
      options.reply(response, typeof step === 'function' ? await (step as (body: Body) => Reply | Promise<Reply>)(body) : step, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `text` in two non-empty pieces (or none, or one), so each value arrives over several chunks or events. */
export function halves(text: string): string[] {
  if (text.length < 2) return text === '' ? [] : [text];
  const middle = Math.floor(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { ...headers, 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
