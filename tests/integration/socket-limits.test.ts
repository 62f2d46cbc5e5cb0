import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import WebSocket from 'ws';
import * as encoding from 'lib0/encoding';
import { useTestServer } from '../helpers/use-test-server.ts';
import { startTestServer } from '../helpers/server.ts';
import { connectPeer, waitFor, type Peer } from '../helpers/peer.ts';
import { messageTypeOf, messageTypes, recordIncoming, sendRaw, socketClosed, syncFrame, syncTypes } from '../helpers/frames.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { denialReasons } from '../../shared/protocol/denials.ts';

const server = useTestServer({
  limits: { socketsPerSubject: 3, socketMessages: { burst: 120, perSecond: 1 } },
});

/** An update that appends `size` characters to the document the peer holds, not applied to it. */
function bigUpdate(peer: Peer, size: number): Uint8Array {
  const fork = new Y.Doc();
  Y.applyUpdate(fork, Y.encodeStateAsUpdate(peer.ydoc));
  const paragraph = docParts(fork).content.get(0) as Y.XmlElement;
  (paragraph.get(0) as Y.XmlText).insert(0, 'x'.repeat(size));
  return Y.encodeStateAsUpdate(fork, Y.encodeStateVector(peer.ydoc));
}

async function markdownOf(docId: string): Promise<string> {
  return (await server.api(`/api/docs/${docId}/markdown`)).body;
}

/**
 * Publishes `marker` in awareness and waits for the server's broadcast of it back to the peer
 * (recorded in `frames`): the server has then handled every message the peer sent before.
 */
async function roundTrip(peer: Peer, frames: Uint8Array[], marker: string) {
  const seen = frames.length;
  peer.provider.setAwarenessField('user', { name: 'x', color: '#00aa00', status: marker });
  await waitFor(() => frames.slice(seen).some((frame) => messageTypeOf(frame) === messageTypes.awareness));
}

describe('WebSocket limits', () => {
  it('[LIMIT1] closes the socket with 1009 on a 10 MiB message and changes nothing', async () => {
    const docId = await server.createDoc('Big', 'Small text.');
    const editor = server.track(connectPeer({ wsUrl: server.wsUrl, name: docId, token: server.token('editor') }));
    await editor.synced;
    const closed = socketClosed(editor);

    sendRaw(editor, syncFrame(docId, syncTypes.update, bigUpdate(editor, 10 * 1024 * 1024)));

    expect(await closed).toBe(1009);
    expect(await markdownOf(docId)).toBe('Small text.');
  });

  it('[LIMIT1] applies an update of a few hundred KiB, as a large offline session sends', async () => {
    const docId = await server.createDoc('Offline', 'Small text.');
    const editor = server.track(connectPeer({ wsUrl: server.wsUrl, name: docId, token: server.token('editor') }));
    await editor.synced;

    sendRaw(editor, syncFrame(docId, syncTypes.update, bigUpdate(editor, 500_000)));

    await waitFor(async () => (await markdownOf(docId)).length === 'Small text.'.length + 500_000);
  });

  it('[LIMIT4] leaves a read-only connection’s big update unread: no answer, no change', async () => {
    const docId = await server.createDoc('Read only', 'Small text.');
    const viewer = server.track(connectPeer({ wsUrl: server.wsUrl, name: docId, token: server.token('viewer') }));
    await viewer.synced;
    const frames = recordIncoming(viewer);
    await roundTrip(viewer, frames, 'settled');
    frames.length = 0;

    const update = bigUpdate(viewer, 2 * 1024 * 1024);
    sendRaw(viewer, syncFrame(docId, syncTypes.step2, update));
    sendRaw(viewer, syncFrame(docId, syncTypes.update, update));
    await roundTrip(viewer, frames, 'after the updates');

    // Hocuspocus answers every sync step 2 or update it handles with a sync status (after
    // decoding a step 2 to compare it with the document); none means neither was handled.
    expect(frames.map(messageTypeOf)).not.toContain(messageTypes.syncStatus);
    expect(frames.map(messageTypeOf)).toContain(messageTypes.awareness);
    expect(await markdownOf(docId)).toBe('Small text.');
  });

  it('[LIMIT3] denies a token’s socket beyond socketsPerSubject, and admits one again after a close', async () => {
    const docId = await server.createDoc('Sockets');
    const token = server.token('editor');
    const open = () => server.track(connectPeer({ wsUrl: server.wsUrl, name: docId, token }));
    const first = [open(), open(), open()];
    await Promise.all(first.map((peer) => peer.synced));

    const extra = open();
    expect(await extra.authenticationFailed).toBe(denialReasons.tooManyConnections);
    extra.destroy();

    const other = server.track(connectPeer({ wsUrl: server.wsUrl, name: docId, token: server.token('editor') }));
    await other.synced;
    first[0].destroy();
    await waitFor(async () => {
      const again = connectPeer({ wsUrl: server.wsUrl, name: docId, token });
      const admitted = await Promise.race([again.synced.then(() => true), again.authenticationFailed.then(() => false)]);
      again.destroy();
      return admitted;
    });
  });

  it('[LIMIT3] refuses the upgrade from an address beyond socketsPerIp with 429', async () => {
    const own = await startTestServer({ limits: { socketsPerIp: 12 } });
    const sockets: WebSocket[] = [];
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 13; i++) {
        const socket = new WebSocket(own.wsUrl);
        socket.on('error', () => {});
        sockets.push(socket);
        statuses.push(
          await new Promise<number>((resolve) => {
            socket.once('open', () => resolve(101));
            socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
          }),
        );
      }
      expect(statuses.slice(0, 12)).toEqual(Array(12).fill(101));
      expect(statuses[12]).toBe(429);
    } finally {
      for (const socket of sockets) socket.terminate();
      await own.dispose();
    }
  });

  it('[LIMIT3] closes a socket that opens more documents than it has authenticated', async () => {
    const socket = new WebSocket(server.wsUrl);
    await new Promise((resolve) => socket.once('open', resolve));
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    for (let i = 0; i < 9; i++) {
      const encoder = encoding.createEncoder();
      encoding.writeVarString(encoder, `no-such-document-${i}`);
      encoding.writeVarUint(encoder, messageTypes.sync);
      encoding.writeVarUint(encoder, syncTypes.step1);
      encoding.writeVarUint8Array(encoder, new Uint8Array([0]));
      socket.send(encoding.toUint8Array(encoder));
    }
    // Hocuspocus's own close for a socket beyond maxPendingDocuments (`ResetConnection`).
    expect(await closed).toEqual({ code: 4205, reason: 'Reset Connection' });
  });

  it('[LIMIT2] closes a socket that sends more messages than its budget with 1008', async () => {
    const docId = await server.createDoc('Chatty');
    const chatty = server.track(connectPeer({ wsUrl: server.wsUrl, name: docId, token: server.token('editor') }));
    await chatty.synced;
    const closed = socketClosed(chatty);

    for (let i = 0; i < 150; i++) chatty.provider.setAwarenessField('user', { name: 'x', status: `message ${i}` });

    expect(await closed).toBe(1008);
  });
});
