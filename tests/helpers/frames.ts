import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import type { Peer } from './peer.ts';

/** One entry of a hand-made awareness update: any client id, clock and JSON state. */
export interface AwarenessEntry {
  clientId: number;
  clock: number;
  state: unknown;
}

/** Hocuspocus's message types (`MessageType` in @hocuspocus/server). */
export const messageTypes = { sync: 0, awareness: 1, syncStatus: 8 } as const;

/** y-protocols sync sub-types. */
export const syncTypes = { step1: 0, step2: 1, update: 2 } as const;

/** The bytes of a y-protocols awareness update carrying exactly `entries`. */
export function awarenessUpdate(entries: AwarenessEntry[]): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, entries.length);
  for (const entry of entries) {
    encoding.writeVarUint(encoder, entry.clientId);
    encoding.writeVarUint(encoder, entry.clock);
    encoding.writeVarString(encoder, JSON.stringify(entry.state));
  }
  return encoding.toUint8Array(encoder);
}

/** A Hocuspocus awareness message for `documentName` whose update is `update`, as it is. */
export function awarenessFrame(documentName: string, update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, documentName);
  encoding.writeVarUint(encoder, messageTypes.awareness);
  encoding.writeVarUint8Array(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** A Hocuspocus sync message for `documentName`: a step 2 or an update carrying `update`. */
export function syncFrame(documentName: string, syncType: number, update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, documentName);
  encoding.writeVarUint(encoder, messageTypes.sync);
  encoding.writeVarUint(encoder, syncType);
  encoding.writeVarUint8Array(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** The Hocuspocus message type of a frame the server sent. */
export function messageTypeOf(frame: Uint8Array): number {
  const decoder = decoding.createDecoder(frame);
  decoding.readVarString(decoder);
  return decoding.readVarUint(decoder);
}

/** Every frame the server sends `peer` from now on, in order. */
export function recordIncoming(peer: Peer): Uint8Array[] {
  const frames: Uint8Array[] = [];
  peer.provider.on('message', ({ event }: { event: MessageEvent }) => frames.push(new Uint8Array(event.data as ArrayBuffer)));
  return frames;
}

/** Resolves with the close code when the peer's WebSocket closes. */
export function socketClosed(peer: Peer): Promise<number> {
  return new Promise((resolve) => peer.provider.configuration.websocketProvider.on('close', ({ event }: { event: CloseEvent }) => resolve(event.code)));
}

/** Sends `bytes` on the peer's WebSocket, bypassing its provider (as a hostile client would). */
export function sendRaw(peer: Peer, bytes: Uint8Array): void {
  peer.provider.configuration.websocketProvider.send(bytes);
}

/** Every awareness state `peer` holds for others and itself, by client id. */
export function statesSeenBy(peer: Peer): Map<number, Record<string, any>> {
  return peer.provider.awareness!.getStates() as Map<number, Record<string, any>>;
}
