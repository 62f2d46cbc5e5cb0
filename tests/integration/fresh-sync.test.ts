import fc from 'fast-check';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as Y from 'yjs';
import { afterEach, describe, expect, it } from 'vitest';
import { FreshSync } from '../../server/sync/fresh-sync.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { appendParagraph } from '../helpers/doc-builder.ts';
import { messageTypes, recordIncoming, syncTypes } from '../helpers/frames.ts';
import { connectPeer, roundTrip, type Peer } from '../helpers/peer.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { storedRows } from '../helpers/stored-rows.ts';

let server: TestServer;
const peers: Peer[] = [];

afterEach(async () => {
  for (const peer of peers.splice(0)) peer.destroy();
  await server?.dispose();
});

function peer(name: string, options: { ydoc?: Y.Doc; role?: 'editor' | 'viewer'; token?: string } = {}): Peer {
  const token = options.token ?? server.token(options.role ?? 'editor');
  const connected = connectPeer({ wsUrl: server.wsUrl, name, token, ydoc: options.ydoc, awareness: false });
  peers.push(connected);
  return connected;
}

/** The updates of the sync step 2 messages among `frames`, in order. */
function step2Updates(frames: Uint8Array[]): Uint8Array[] {
  return frames.flatMap((frame) => {
    const decoder = decoding.createDecoder(frame);
    decoding.readVarString(decoder);
    if (decoding.readVarUint(decoder) !== messageTypes.sync || decoding.readVarUint(decoder) !== syncTypes.step2) return [];
    return [decoding.readVarUint8Array(decoder)];
  });
}

/** The stored state of the document `name`, as its row holds it (SQLite or PostgreSQL). */
async function storedState(name: string): Promise<Uint8Array> {
  const { state } = await storedRows(server, name);
  if (state === null) throw new Error(`No stored state of ${name}`);
  return state;
}

const texts = (ydoc: Y.Doc) => docParts(ydoc).content.toArray().map((block) => (block as Y.XmlElement).toString());

describe('a peer that holds nothing of a document', () => {
  it('[DUR6] is sent the stored state as it is when the document was loaded from it and has not changed', async () => {
    server = await startTestServer();
    const id = await server.createDoc('Stored', 'one\n\ntwo\n\nthree');
    await server.restart();
    const stored = await storedState(id);

    const reader = peer(id);
    const frames = recordIncoming(reader);
    await reader.synced;
    await roundTrip(reader);
    const [first] = step2Updates(frames);
    expect(Buffer.from(first).equals(Buffer.from(stored))).toBe(true);
    expect(texts(reader.ydoc)).toHaveLength(3);

    // A second fresh peer of the unchanged document gets the same bytes.
    const second = peer(id, { role: 'viewer' });
    const secondFrames = recordIncoming(second);
    await second.synced;
    expect(Buffer.from(step2Updates(secondFrames)[0]).equals(Buffer.from(stored))).toBe(true);
  });

  it('[DUR6] is sent every change made since the document loaded', async () => {
    server = await startTestServer();
    const id = await server.createDoc('Changed', 'one');
    await server.restart();
    const writer = peer(id);
    await writer.synced;
    appendParagraph(writer.ydoc, 'two');
    await roundTrip(writer);

    const reader = peer(id);
    await reader.synced;
    expect(texts(reader.ydoc)).toEqual(texts(writer.ydoc));
    expect(texts(reader.ydoc)).toHaveLength(2);

    // The state encoded for that peer is kept, and dropped by the next change.
    appendParagraph(writer.ydoc, 'three');
    await roundTrip(writer);
    const later = peer(id);
    await later.synced;
    expect(texts(later.ydoc)).toEqual(texts(writer.ydoc));
    expect(texts(later.ydoc)).toHaveLength(3);
  });

  it('[DUR6] gets the same document as a peer that already holds part of it, whatever was typed, deleted or restarted in between', async () => {
    server = await startTestServer();
    const id = await server.createDoc('Random', 'start');
    const action = fc.oneof(
      fc.record({ k: fc.constant('type' as const), at: fc.nat(), text: fc.string({ minLength: 1, maxLength: 8 }) }),
      fc.record({ k: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 6 }) }),
      fc.record({ k: fc.constant('paragraph' as const), text: fc.string({ maxLength: 8 }) }),
      fc.constant({ k: 'join' as const }),
      fc.constant({ k: 'restart' as const }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 8 }), async (actions) => {
        const ydoc = new Y.Doc();
        // One person's replica: it reconnects with the same token (its client id is theirs, WHO2).
        const token = server.token('editor');
        let writer = peer(id, { ydoc, token });
        await writer.synced;
        const check = async () => {
          await roundTrip(writer);
          const fresh = peer(id);
          // A peer with the writer's state minus nothing new: Hocuspocus answers it from its state vector.
          const known = peer(id, { ydoc: cloneDoc(ydoc) });
          await Promise.all([fresh.synced, known.synced]);
          await roundTrip(known);
          expect(texts(fresh.ydoc)).toEqual(texts(ydoc));
          expect(texts(fresh.ydoc)).toEqual(texts(known.ydoc));
          expect(Y.encodeStateVector(fresh.ydoc)).toEqual(Y.encodeStateVector(ydoc));
          fresh.destroy();
          known.destroy();
        };
        for (const step of actions) {
          const text = lastText(ydoc);
          if (step.k === 'type') text.insert(step.at % (text.length + 1), step.text);
          else if (step.k === 'delete' && text.length > 0) text.delete(step.at % text.length, Math.min(step.length, text.length - (step.at % text.length)));
          else if (step.k === 'paragraph') appendParagraph(ydoc, step.text);
          else if (step.k === 'join') await check();
          else if (step.k === 'restart') {
            await roundTrip(writer);
            writer.destroy();
            await server.restart();
            writer = peer(id, { ydoc, token });
            await writer.synced;
          }
        }
        await check();
        writer.destroy();
      }),
      { numRuns: 8 },
    );
  });
});

function cloneDoc(ydoc: Y.Doc): Y.Doc {
  const copy = new Y.Doc();
  Y.applyUpdate(copy, Y.encodeStateAsUpdate(ydoc));
  return copy;
}

/** The text of the last paragraph (y-prosemirror keeps a paragraph's text in one Y.XmlText). */
function lastText(ydoc: Y.Doc): Y.XmlText {
  const blocks = docParts(ydoc).content;
  const block = blocks.get(blocks.length - 1) as Y.XmlElement;
  let text = block.get(0);
  if (!(text instanceof Y.XmlText)) {
    text = new Y.XmlText();
    block.insert(0, [text]);
  }
  return text as Y.XmlText;
}

describe('the socket layer', () => {
  const frame = (address: string, type: number, syncType: number, stateVector: Uint8Array, trailing: number[] = []) => {
    const encoder = encoding.createEncoder();
    encoding.writeVarString(encoder, address);
    encoding.writeVarUint(encoder, type);
    encoding.writeVarUint(encoder, syncType);
    encoding.writeVarUint8Array(encoder, stateVector);
    for (const byte of trailing) encoding.writeUint8(encoder, byte);
    return encoding.toUint8Array(encoder);
  };
  const empty = Y.encodeStateVector(new Y.Doc());

  it('[DUR6] substitutes an awareness query of the same address for a step 1 with an empty state vector, and nothing else', async () => {
    const fresh = new FreshSync();
    const address = 'doc-1\0session-é';
    const step1 = frame(address, messageTypes.sync, syncTypes.step1, empty);
    // Without a Hocuspocus that has the extension nobody would answer a substitute: frames pass as they are.
    expect(fresh.frame(step1)).toBe(step1);
    await fresh.onConfigure();
    const substitute = fresh.frame(frame(address, messageTypes.sync, syncTypes.step1, empty));
    const decoder = decoding.createDecoder(substitute);
    expect(decoding.readVarString(decoder)).toBe(address);
    expect(decoding.readVarUint(decoder)).toBe(3);
    expect(decoding.hasContent(decoder)).toBe(false);

    const known = new Y.Doc();
    known.getMap('m').set('k', 1);
    const others = [
      frame(address, messageTypes.sync, syncTypes.step1, Y.encodeStateVector(known)),
      frame(address, messageTypes.sync, syncTypes.step2, empty),
      frame(address, 4, syncTypes.step1, empty),
      frame(address, messageTypes.sync, syncTypes.step1, empty, [0]),
      frame(address, messageTypes.sync, syncTypes.step1, empty).subarray(0, 4),
      Uint8Array.of(200),
    ];
    for (const other of others) expect(fresh.frame(other)).toBe(other);
  });
});
