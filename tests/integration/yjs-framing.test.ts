import { describe, expect, it } from 'vitest';
import * as encoding from 'lib0/encoding';
import * as decoding from 'lib0/decoding';
import * as Y from 'yjs';
import * as syncProtocol from 'y-protocols/sync';
import * as authProtocol from 'y-protocols/auth';
import { OutgoingMessage } from '@hocuspocus/server';
import { authFrame, fromHocuspocusFrame, toHocuspocusFrame, yMessageType } from '../../server/sync/yjs-framing.ts';

function yFrame(type: number, write: (encoder: encoding.Encoder) => void = () => {}): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, type);
  write(encoder);
  return encoding.toUint8Array(encoder);
}

describe('the y-websocket framing', () => {
  it('[YWS2] puts the document name in front of sync, awareness and awareness-query frames', () => {
    const step1 = yFrame(yMessageType.sync, (encoder) => syncProtocol.writeSyncStep1(encoder, new Y.Doc()));
    const translated = toHocuspocusFrame('doc1/notes', step1)!;
    const decoder = decoding.createDecoder(translated);
    expect(decoding.readVarString(decoder)).toBe('doc1/notes');
    expect(translated.subarray(decoder.pos)).toEqual(step1);
    expect(toHocuspocusFrame('doc1', yFrame(yMessageType.queryAwareness))).not.toBeNull();
  });

  it('[YWS2] drops inbound frames of other types: auth, Hocuspocus stateless messages, empty frames', () => {
    expect(toHocuspocusFrame('doc1', yFrame(yMessageType.auth, (encoder) => encoding.writeVarString(encoder, 'token')))).toBeNull();
    expect(toHocuspocusFrame('doc1', yFrame(5, (encoder) => encoding.writeVarString(encoder, '{}')))).toBeNull();
    expect(toHocuspocusFrame('doc1', new Uint8Array())).toBeNull();
  });

  it('[YWS2] strips the name from outbound sync frames, turns sync replies into sync, and drops sync statuses and stateless messages', () => {
    const ydoc = new Y.Doc();
    // writeFirstSyncStepFor reads only the Y.Doc of the Hocuspocus Document it is given.
    const document = ydoc as unknown as Parameters<OutgoingMessage['writeFirstSyncStepFor']>[0];
    const sync = new OutgoingMessage('doc1').createSyncMessage().writeFirstSyncStepFor(document).toUint8Array();
    expect(fromHocuspocusFrame(sync)).toEqual({ action: 'send', frame: yFrame(0, (encoder) => syncProtocol.writeSyncStep1(encoder, ydoc)) });
    const reply = new OutgoingMessage('doc1').createSyncReplyMessage().writeFirstSyncStepFor(document).toUint8Array();
    expect(fromHocuspocusFrame(reply)).toEqual({ action: 'send', frame: yFrame(0, (encoder) => syncProtocol.writeSyncStep1(encoder, ydoc)) });
    expect(fromHocuspocusFrame(new OutgoingMessage('doc1').writeSyncStatus(true).toUint8Array())).toEqual({ action: 'drop' });
    expect(fromHocuspocusFrame(new OutgoingMessage('doc1').writeStateless('{}').toUint8Array())).toEqual({ action: 'drop' });
    expect(fromHocuspocusFrame(new OutgoingMessage('doc1').writeAuthenticated(true).toUint8Array())).toEqual({ action: 'authenticated' });
  });

  it('[YWS3] turns a refusal into y-protocols’ permission-denied message and a close with its code', () => {
    const denied = fromHocuspocusFrame(new OutgoingMessage('doc1').writePermissionDenied('Token expired').toUint8Array());
    expect(denied).toMatchObject({ action: 'close', code: 4401, reason: 'Token expired' });
    const decoder = decoding.createDecoder((denied as { frame: Uint8Array }).frame);
    expect(decoding.readVarUint(decoder)).toBe(yMessageType.auth);
    let reason = '';
    authProtocol.readAuthMessage(decoder, new Y.Doc(), (_ydoc, given) => (reason = given));
    expect(reason).toBe('Token expired');
    expect(fromHocuspocusFrame(new OutgoingMessage('d').writePermissionDenied('Not allowed').toUint8Array())).toMatchObject({ code: 4403 });
    expect(fromHocuspocusFrame(new OutgoingMessage('d').writeCloseMessage('[NOTES12] too large').toUint8Array())).toMatchObject({ code: 4413 });
    expect(fromHocuspocusFrame(new OutgoingMessage('d').writeCloseMessage('[NOTES4] not yours').toUint8Array())).toMatchObject({ code: 4403 });
    expect(fromHocuspocusFrame(new OutgoingMessage('d').writeCloseMessage('Server closed the connection').toUint8Array())).toMatchObject({ code: 1000 });
  });

  it('[YWS1] authenticates with the token as a Hocuspocus provider’s first message does', () => {
    const decoder = decoding.createDecoder(authFrame('doc1', 'TOKEN'));
    expect([decoding.readVarString(decoder), decoding.readVarUint(decoder), decoding.readVarUint(decoder), decoding.readVarString(decoder)]).toEqual(['doc1', 2, 0, 'TOKEN']);
  });
});
