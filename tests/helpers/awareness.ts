import * as encoding from 'lib0/encoding';
import type { Peer } from './peer.ts';

/** One entry of a hand-made awareness update: any client id, clock and JSON state. */
export interface AwarenessEntry {
  clientId: number;
  clock: number;
  state: unknown;
}

/** Hocuspocus's message type for awareness (`MessageType.Awareness`). */
const awarenessMessage = 1;

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
  encoding.writeVarUint(encoder, awarenessMessage);
  encoding.writeVarUint8Array(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** Sends `bytes` on the peer's WebSocket, bypassing its provider (as a hostile client would). */
export function sendRaw(peer: Peer, bytes: Uint8Array): void {
  peer.provider.configuration.websocketProvider.send(bytes);
}

/** Every awareness state `peer` holds for others and itself, by client id. */
export function statesSeenBy(peer: Peer): Map<number, Record<string, any>> {
  return peer.provider.awareness!.getStates() as Map<number, Record<string, any>>;
}
