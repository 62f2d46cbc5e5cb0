import * as Y from 'yjs';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { messageYjsSyncStep1, messageYjsSyncStep2 } from 'y-protocols/sync';
import { MessageType, OutgoingMessage, type beforeHandleMessagePayload, type Document, type Extension } from '@hocuspocus/server';
import { runBeforeSyncHooks } from './hocuspocus-internals.ts';
import { extensionPriority } from './extension-priorities.ts';

/** A state vector of no client: what a peer that holds nothing of the document sends. */
const emptyStateVector = Uint8Array.of(0);

/**
 * [DUR6] Answers the sync step 1 of a peer that holds nothing of a document (its state vector is
 * empty, as a new tab's or a new agent's is) with a whole state kept for the purpose, instead of
 * Hocuspocus's `Y.encodeStateAsUpdate` per peer, which costs about as much as loading the
 * document: the stored state the document was loaded from while nothing has changed since
 * (`loaded`), else the encoding made for the previous such peer, until the next change. Both
 * decode to the document: a change since drops the kept state in the `update` event.
 *
 * Hocuspocus has no hook to answer a step 1, so the socket layer hands such a frame to
 * Hocuspocus as an awareness query of the same document (`frame`), which Hocuspocus takes in
 * its turn among the connection's messages and answers with nothing; this extension recognises
 * that very frame object in `beforeHandleMessage` and answers in its place exactly as Hocuspocus
 * answers a step 1: the `beforeSync` hooks, then the server's step 1, then the step 2. A client
 * cannot forge the substitute (it is known by identity, not by its bytes).
 */
export class FreshSync implements Extension {
  extensionName = 'TandemFreshSync';
  priority = extensionPriority.freshSync;

  /** Set once a Hocuspocus has this extension: only then is there someone to answer a substitute. */
  private configured = false;
  private readonly requests = new WeakSet<Uint8Array>();
  private readonly states = new WeakMap<Document, Uint8Array>();

  /**
   * Called with every frame a client sends, after the socket's gate passed it; returns the frame
   * to hand to Hocuspocus: the substitute for a sync step 1 with an empty state vector, else
   * `frame` itself (always, while no Hocuspocus has this extension).
   */
  frame(frame: Uint8Array): Uint8Array {
    if (!this.configured) return frame;
    const addressEnd = freshSyncAddressEnd(frame);
    if (addressEnd === null) return frame;
    const substitute = new Uint8Array(addressEnd + 1);
    substitute.set(frame.subarray(0, addressEnd));
    substitute[addressEnd] = MessageType.QueryAwareness;
    this.requests.add(substitute);
    return substitute;
  }

  /**
   * Called by the persistence once it has loaded `document` from `state` alone (no logged update
   * after it), before anything else can change the document.
   */
  loaded(document: Document, state: Uint8Array): void {
    this.keep(document, state);
  }

  async onConfigure(): Promise<void> {
    this.configured = true;
  }

  async beforeHandleMessage({ update, connection, document }: beforeHandleMessagePayload): Promise<void> {
    if (!this.requests.has(update)) return;
    this.requests.delete(update);
    await runBeforeSyncHooks(connection, { type: messageYjsSyncStep1, payload: emptyStateVector });
    connection.send(new OutgoingMessage(connection.messageAddress).createSyncMessage().writeFirstSyncStepFor(document).toUint8Array());
    const step2 = new OutgoingMessage(connection.messageAddress).createSyncMessage();
    encoding.writeVarUint(step2.encoder, messageYjsSyncStep2);
    encoding.writeVarUint8Array(step2.encoder, this.stateOf(document));
    connection.send(step2.toUint8Array());
  }

  private stateOf(document: Document): Uint8Array {
    const kept = this.states.get(document);
    if (kept) return kept;
    const state = Y.encodeStateAsUpdate(document);
    this.keep(document, state);
    return state;
  }

  private keep(document: Document, state: Uint8Array): void {
    if (this.states.has(document)) return;
    this.states.set(document, state);
    const drop = () => {
      this.states.delete(document);
      document.off('update', drop);
    };
    document.on('update', drop);
  }
}

/**
 * Where the address of `frame` ends when it is a Hocuspocus sync message carrying a step 1 with
 * an empty state vector and nothing after; null for any other frame (or one that does not decode).
 */
function freshSyncAddressEnd(frame: Uint8Array): number | null {
  try {
    const decoder = decoding.createDecoder(frame);
    const addressLength = decoding.readVarUint(decoder);
    const addressEnd = decoder.pos + addressLength;
    decoder.pos = addressEnd;
    if (addressEnd > frame.length) return null;
    if (decoding.readVarUint(decoder) !== MessageType.Sync || decoding.readVarUint(decoder) !== messageYjsSyncStep1) return null;
    const stateVector = decoding.readVarUint8Array(decoder);
    const empty = stateVector.length === 1 && stateVector[0] === 0;
    return empty && !decoding.hasContent(decoder) ? addressEnd : null;
  } catch {
    return null;
  }
}
