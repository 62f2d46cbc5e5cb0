import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { json, sendReply, sliceChars, text, type Reply } from '../../server/http/reply.ts';
import { rawBlocks, stringifyWithRaw } from '../../server/raw-json.ts';

let server: Server | null = null;

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = null;
});

/** A real HTTP server answering every request with `reply`; `sent` sees the response right after sendReply returned. */
async function serve(reply: Reply, sent: (res: ServerResponse) => void = () => {}): Promise<string> {
  server = createServer((_req, res) => {
    sendReply(res, reply);
    sent(res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe('answers (server/http/reply.ts)', () => {
  it('[LIMIT10] writes a large answer whole, its Content-Length right, with no character split between slices', async () => {
    // Surrogate pairs and multi-byte characters sit across every slice boundary.
    const unit = 'a'.repeat(sliceChars - 1) + '😀é';
    const blocks = JSON.stringify(Array.from({ length: 5 }, (_, i) => ({ id: `b${i}`, markdown: unit })));
    const body = { title: 'Long 😀', content: { blocks: rawBlocks(blocks) } };
    const url = await serve(json(200, body));
    const response = await fetch(url);
    const received = await response.text();
    expect(received).toBe(stringifyWithRaw(body));
    expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(received));
    expect(JSON.parse(received).content.blocks[4].markdown).toBe(unit);

    const markdown = ('😀'.repeat(sliceChars / 2 - 1) + 'x😀').repeat(3);
    await new Promise((resolve) => server!.close(resolve));
    const textUrl = await serve(text(200, markdown, 'text/markdown; charset=utf-8'));
    expect(await (await fetch(textUrl)).text()).toBe(markdown);
  });

  it('[LIMIT10] hands a large answer to the socket a slice at a time, so the event loop is free between slices', async () => {
    const big = 'x'.repeat(40 * sliceChars);
    let handedOver = -1;
    const url = await serve(text(200, big), (res) => (handedOver = res.socket!.bytesWritten));
    expect((await (await fetch(url)).text()).length).toBe(big.length);
    // Written at once, the whole body (2.6 MB) is encoded and handed over before sendReply returns.
    expect(handedOver).toBeGreaterThan(0);
    expect(handedOver).toBeLessThan(2 * sliceChars);
  });
});
