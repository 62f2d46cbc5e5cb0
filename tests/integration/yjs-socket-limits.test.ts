import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import * as Y from 'yjs';
import * as encoding from 'lib0/encoding';
import * as decoding from 'lib0/decoding';
import * as syncProtocol from 'y-protocols/sync';
import { authFrame, yMessageType } from '../../server/sync/yjs-framing.ts';
import { readBlocks } from '../../shared/model/doc-content.ts';
import { denialReasons } from '../../shared/protocol/denials.ts';
import { appendParagraph } from '../helpers/doc-builder.ts';
import { connectPeer } from '../helpers/peer.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { connectYjsPeer, yjsRoundTrip, yjsUrl, type YjsPeer } from '../helpers/yjs-peer.ts';

describe('limits on /yjs', () => {
  const server = useTestServer({ limits: { socketsPerSubject: 2, maxMessageBytes: 64 * 1024 } });
  const yjs = (name: string, token: string) => server.track(connectYjsPeer({ wsUrl: server.wsUrl, name, token }));

  it('[YWS3] [LIMIT1] closes the socket with 1009 on a message over maxMessageBytes, and changes nothing', async () => {
    const id = await server.createDoc('Large', 'original');
    const writer = yjs(id, server.token('editor'));
    await writer.synced;
    appendParagraph(writer.ydoc, 'x'.repeat(100 * 1024));
    expect((await writer.closed).code).toBe(1009);
    const reader = server.track(connectPeer({ wsUrl: server.wsUrl, name: id, token: server.ownerToken }));
    await reader.synced;
    expect(readBlocks(reader.ydoc).map((block) => block.markdown)).toEqual(['original']);
  });

  it('[YWS3] [LIMIT3] refuses a subject’s socket beyond socketsPerSubject with 4429 "Too many connections"', async () => {
    const id = await server.createDoc('Crowded', 'original');
    const token = server.token('viewer');
    const admitted = [yjs(id, token), yjs(id, token)];
    await Promise.all(admitted.map((peer) => peer.synced));
    expect(await yjs(id, token).closed).toEqual({ code: 4429, reason: denialReasons.tooManyConnections });
  });
});

describe('idle /yjs sockets', () => {
  // Pings come every third of it: room for a loaded machine.
  const idleSocketMs = 3000;
  const server = useTestServer({ limits: { idleSocketMs } });

  /** A bare WebSocket; resolves once open. Node's `ws` answers pings by itself, as browsers do. */
  async function open(url: string): Promise<WebSocket> {
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    return socket;
  }

  /** Resolves with the next frame the server sends after `frame`. */
  function answerTo(socket: WebSocket, frame: Uint8Array): Promise<Uint8Array> {
    const answer = new Promise<Uint8Array>((resolve) => socket.once('message', (data: Buffer) => resolve(new Uint8Array(data))));
    socket.send(frame);
    return answer;
  }

  const step1 = (): Uint8Array => {
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, yMessageType.sync);
    syncProtocol.writeSyncStep1(encoder, new Y.Doc());
    return encoding.toUint8Array(encoder);
  };

  it('[YWS6] keeps a silent /yjs client connected past the idle timeout, where a silent /collab socket is closed', async () => {
    const id = await server.createDoc('Quiet', 'original');
    const token = server.token('viewer');
    const yjsSocket = await open(`${yjsUrl(server.wsUrl)}/${id}?token=${token}`);
    expect(await answerTo(yjsSocket, step1())).toBeInstanceOf(Uint8Array);
    // The positive control: an authenticated Hocuspocus socket that then says nothing.
    const collabSocket = await open(server.wsUrl);
    const collabClosed = new Promise<number>((resolve) => collabSocket.once('close', resolve));
    collabSocket.send(authFrame(id, token));

    expect(await collabClosed).toBe(4408);
    expect(yjsSocket.readyState).toBe(WebSocket.OPEN);
    const answer = decoding.createDecoder(await answerTo(yjsSocket, step1()));
    expect(decoding.readVarUint(answer)).toBe(yMessageType.sync);
    yjsSocket.close();
  });
});

describe('durability of /yjs edits', () => {
  let dataDir: string | undefined;
  let child: ServerProcess | undefined;
  const peers: YjsPeer[] = [];

  afterEach(async () => {
    for (const peer of peers.splice(0)) peer.destroy();
    await child?.kill();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    child = undefined;
    dataDir = undefined;
  });

  it('[YWS1] [DUR1] keeps an edit the server answered on /yjs when its process is killed right after', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tandem-yjs-'));
    child = await startServerProcess(dataDir);
    const id = await child.createDoc('Crash', 'original');
    const writer = connectYjsPeer({ wsUrl: child.wsUrl, name: id, token: child.token('editor') });
    peers.push(writer);
    await writer.synced;
    appendParagraph(writer.ydoc, 'kept through a crash');
    await yjsRoundTrip(writer);
    await child.kill();

    child = await startServerProcess(dataDir);
    const reader = connectPeer({ wsUrl: child.wsUrl, name: id, token: child.ownerToken });
    try {
      await reader.synced;
      expect(readBlocks(reader.ydoc).map((block) => block.markdown)).toEqual(['original', 'kept through a crash']);
    } finally {
      reader.destroy();
    }
  }, 60_000);
});
