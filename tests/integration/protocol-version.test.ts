import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { connectPeer } from '../helpers/peer.ts';
import { connectYjsPeer, yjsUrl } from '../helpers/yjs-peer.ts';
import { protocolVersion } from '../../shared/protocol/protocol-version.ts';

const packageVersion = (JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

/** Opens a WebSocket at `url` and resolves with the code and reason of its close. */
function firstClose(url: string): Promise<{ code: number; reason: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.on('error', reject);
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
  });
}

let server: TestServer;
let docId: string;

beforeAll(async () => {
  server = await startTestServer();
  docId = await server.createDoc('Versions', 'Some text');
});

afterAll(async () => {
  await server.dispose();
});

describe('the versions of the protocol', () => {
  it('[VER1] /healthz says the package version and the protocol version, with no token', async () => {
    const response = await server.api('/healthz', { token: null });
    expect(response).toMatchObject({ status: 200, body: { ok: true, version: packageVersion, protocol: protocolVersion } });
    expect(Object.keys(response.body).sort()).toEqual(['ok', 'protocol', 'version']);
  });

  it('[VER2] serves a client that states this version, and one that states none, while version 1 is supported', async () => {
    const stating = connectPeer({ wsUrl: `${server.wsUrl}?protocol=${protocolVersion}`, name: docId, token: server.ownerToken });
    const yjs = connectYjsPeer({ wsUrl: server.wsUrl, name: docId, token: server.ownerToken });
    try {
      await stating.synced;
      await yjs.synced;
      expect(yjs.ydoc.getXmlFragment('content').length).toBeGreaterThan(0);
    } finally {
      stating.destroy();
      yjs.destroy();
    }
  });

  it('[VER2] closes a socket whose protocol parameter is not a positive integer with 4400', async () => {
    for (const stated of ['', 'one', '0', '-1', '1.5']) {
      expect(await firstClose(`${server.wsUrl}?protocol=${encodeURIComponent(stated)}`)).toEqual({ code: 4400, reason: 'Malformed protocol version' });
    }
    expect(await firstClose(`${yjsUrl(server.wsUrl)}/${docId}?protocol=x&token=${server.ownerToken}`)).toEqual({ code: 4400, reason: 'Malformed protocol version' });
  });
});

describe('a server that no longer supports version 1', () => {
  beforeAll(async () => {
    await server.restart({ oldestProtocol: 2 });
  });

  afterAll(async () => {
    await server.restart({ oldestProtocol: undefined });
  });

  it('[VER3] closes /collab and /yjs sockets of older clients with 4426 PROTOCOL_OUTDATED', async () => {
    const outdated = { code: 4426, reason: 'PROTOCOL_OUTDATED' };
    expect(await firstClose(`${server.wsUrl}?protocol=1`)).toEqual(outdated);
    expect(await firstClose(server.wsUrl)).toEqual(outdated);
    expect(await firstClose(`${yjsUrl(server.wsUrl)}/${docId}?token=${server.ownerToken}`)).toEqual(outdated);
    const yjs = connectYjsPeer({ wsUrl: server.wsUrl, name: docId, token: server.ownerToken });
    expect(await yjs.closed).toEqual(outdated);
    yjs.destroy();
  });

  it('[VER3] serves a client that states the supported version or a newer one', async () => {
    for (const stated of [2, 3]) {
      const peer = connectPeer({ wsUrl: `${server.wsUrl}?protocol=${stated}`, name: docId, token: server.ownerToken });
      try {
        await peer.synced;
        expect(peer.ydoc.getXmlFragment('content').length).toBeGreaterThan(0);
      } finally {
        peer.destroy();
      }
    }
  });
});
