import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { MessageType } from '@hocuspocus/server';
import * as authProtocol from 'y-protocols/auth';
import { denialReasons } from '../../shared/protocol/denials.ts';

/**
 * The y-websocket framing (the `y-websocket` provider, pycrdt-websocket, y-crdt's servers): every
 * frame is `varUint(type)` followed by a y-protocols message. Hocuspocus frames are the same with
 * the document's name in front (`varString(name)`), plus message types of its own. These
 * functions translate one frame each way (YWS2); nothing else about the protocols differs.
 */
export const yMessageType = { sync: 0, awareness: 1, auth: 2, queryAwareness: 3 } as const;

/** Hocuspocus's auth sub-types (`AuthMessageType` of @hocuspocus/common, which the server package does not re-export). */
const AuthMessageType = { Token: 0, PermissionDenied: 1, Authenticated: 2 } as const;

/** What the y-websocket side sends: sync, awareness and awareness queries. */
const inboundTypes = new Set<number>([yMessageType.sync, yMessageType.awareness, yMessageType.queryAwareness]);

/**
 * The Hocuspocus frame for a y-websocket frame sent to `documentName`, or null for a frame the
 * bridge drops (a message type other than sync, awareness and awareness query, or no type).
 */
export function toHocuspocusFrame(documentName: string, frame: Uint8Array): Uint8Array | null {
  let type: number;
  try {
    type = decoding.readVarUint(decoding.createDecoder(frame));
  } catch {
    return null;
  }
  if (!inboundTypes.has(type)) return null;
  return addressedFrame(documentName, frame);
}

/** `frame` addressed to `documentName`, as Hocuspocus reads a message; for frames the server makes itself. */
export function addressedFrame(documentName: string, frame: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, documentName);
  encoding.writeUint8Array(encoder, frame);
  return encoding.toUint8Array(encoder);
}

/** The Hocuspocus frame that authenticates `documentName` with `token`, as a provider's first message. */
export function authFrame(documentName: string, token: string): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, documentName);
  encoding.writeVarUint(encoder, MessageType.Auth);
  encoding.writeVarUint(encoder, AuthMessageType.Token);
  encoding.writeVarString(encoder, token);
  return encoding.toUint8Array(encoder);
}

/** What to do with one frame Hocuspocus sends to a y-websocket peer. */
export type Outbound =
  | { action: 'send'; frame: Uint8Array }
  | { action: 'drop' }
  | { action: 'authenticated' }
  | { action: 'close'; code: number; reason: string; frame?: Uint8Array };

/** Close codes of the bridge (YWS3): Hocuspocus's own where it has one. */
export const yjsCloseCodes = { unauthorized: 4401, forbidden: 4403, tooLarge: 4413, tooMany: 4429, reset: 4205, normal: 1000 } as const;

const tokenReasons = new Set<string>([denialReasons.invalidToken, denialReasons.expiredToken, denialReasons.revokedToken]);

/**
 * Translates a Hocuspocus frame for the y-websocket side: sync and awareness go through without
 * the document name; the authentication answer is swallowed, or turns into y-protocols'
 * permission-denied message and a close; Hocuspocus's close message closes the socket;
 * stateless messages and sync statuses, which y-websocket does not know, are dropped.
 */
export function fromHocuspocusFrame(frame: Uint8Array): Outbound {
  const decoder = decoding.createDecoder(frame);
  decoding.readVarString(decoder);
  const start = decoder.pos;
  const type = decoding.readVarUint(decoder);
  switch (type) {
    case MessageType.Sync:
    case MessageType.Awareness:
    case MessageType.QueryAwareness:
      return { action: 'send', frame: frame.subarray(start) };
    case MessageType.SyncReply: {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, yMessageType.sync);
      encoding.writeUint8Array(encoder, frame.subarray(decoder.pos));
      return { action: 'send', frame: encoding.toUint8Array(encoder) };
    }
    case MessageType.Auth: {
      if (decoding.readVarUint(decoder) !== AuthMessageType.PermissionDenied) return { action: 'authenticated' };
      const reason = decoding.readVarString(decoder);
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, yMessageType.auth);
      authProtocol.writePermissionDenied(encoder, reason);
      return { action: 'close', code: denialCode(reason), reason, frame: encoding.toUint8Array(encoder) };
    }
    case MessageType.CLOSE: {
      const reason = decoding.hasContent(decoder) ? decoding.readVarString(decoder) : '';
      return { action: 'close', code: closeCode(reason), reason };
    }
    default:
      return { action: 'drop' };
  }
}

function denialCode(reason: string): number {
  if (tokenReasons.has(reason)) return yjsCloseCodes.unauthorized;
  if (reason === denialReasons.tooManyConnections) return yjsCloseCodes.tooMany;
  return yjsCloseCodes.forbidden;
}

/**
 * Hocuspocus's close message carries a reason only. A refused write names its rule
 * (`[NOTES7] …`, `[SHAPE2] …`; NOTES12 and SHAPE3 for a size), as the /collab close codes do.
 */
function closeCode(reason: string): number {
  if (reason.startsWith('[NOTES12]') || reason.startsWith('[SHAPE3]')) return yjsCloseCodes.tooLarge;
  if (/^\[[A-Z]+\d+\]/.test(reason)) return yjsCloseCodes.forbidden;
  if (reason === 'Reset Connection') return yjsCloseCodes.reset;
  return yjsCloseCodes.normal;
}
