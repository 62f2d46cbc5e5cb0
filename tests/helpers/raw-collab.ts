import * as Y from 'yjs';
import WebSocket from 'ws';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';

/**
 * A bare Hocuspocus client for one document, for tests that send many hand-made updates: it
 * frames messages itself (as @hocuspocus/provider 4.8 does) and waits for the server's answer
 * to each, so a test knows what became of every update without sleeping.
 */

const messageSync = 0;
const messageAuth = 2;
const messageSyncReply = 4;
const messageClose = 7;
const messageSyncStatus = 8;
const authToken = 0;
const authDenied = 1;
const authAuthenticated = 2;
const syncStep1 = 0;
const syncStep2 = 1;
const syncUpdate = 2;
const providerVersion = '4.8.0';

/** What became of an update: applied, refused with the server's reason, or the socket reset. */
export type Outcome = { kind: 'accepted' } | { kind: 'refused'; reason: string } | { kind: 'reset' };

type Waiter = (event: { kind: 'authenticated' } | { kind: 'status'; ok: boolean } | { kind: 'close'; reason: string } | { kind: 'state'; update: Uint8Array } | { kind: 'socket-closed' }) => void;

export class RawCollabClient {
  private socket: WebSocket | null = null;
  private waiter: Waiter | null = null;
  /** Whether the document is authenticated on the current socket (a refusal closes it, not the socket). */
  private authenticated = false;

  constructor(
    private readonly wsUrl: string,
    private readonly documentName: string,
    private readonly token: string,
  ) {}

  /** Sends `update` as a Yjs update message and resolves with what the server did with it. */
  async send(update: Uint8Array): Promise<Outcome> {
    await this.ready();
    const answer = await this.request(this.frame(messageSync, (encoder) => {
      encoding.writeVarUint(encoder, syncUpdate);
      encoding.writeVarUint8Array(encoder, update);
    }), (event) => event.kind !== 'state');
    if (answer.kind === 'status') return answer.ok ? { kind: 'accepted' } : { kind: 'refused', reason: 'not saved' };
    if (answer.kind === 'authenticated') throw new Error('Authenticated twice');
    if (answer.kind === 'close') {
      this.authenticated = false;
      return { kind: 'refused', reason: answer.reason };
    }
    return { kind: 'reset' };
  }

  /** The document's whole state as the server holds it now (its answer to an empty sync step 1). */
  async state(): Promise<Uint8Array> {
    await this.ready();
    const answer = await this.request(this.frame(messageSync, (encoder) => {
      encoding.writeVarUint(encoder, syncStep1);
      encoding.writeVarUint8Array(encoder, Y.encodeStateVector(new Y.Doc()));
    }), (event) => event.kind === 'state' || event.kind === 'socket-closed' || event.kind === 'close');
    if (answer.kind !== 'state') throw new Error(`No state: ${answer.kind}`);
    return answer.update;
  }

  close(): void {
    this.socket?.close();
    this.socket = null;
  }

  /** An open socket with this document authenticated on it. */
  private async ready(): Promise<void> {
    if (this.socket === null || this.socket.readyState !== WebSocket.OPEN) {
      this.socket = await this.connect();
      this.authenticated = false;
    }
    if (this.authenticated) return;
    const answer = await this.request(this.frame(messageAuth, (encoder) => {
      encoding.writeVarUint(encoder, authToken);
      encoding.writeVarString(encoder, this.token);
      encoding.writeVarString(encoder, providerVersion);
    }), (event) => event.kind !== 'state');
    if (answer.kind !== 'authenticated') throw new Error(`Not authenticated: ${JSON.stringify(answer)}`);
    this.authenticated = true;
  }

  private connect(): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.wsUrl);
      socket.binaryType = 'arraybuffer';
      socket.on('message', (data: ArrayBuffer) => this.receive(new Uint8Array(data)));
      socket.on('close', () => {
        if (this.socket === socket) this.socket = null;
        this.deliver({ kind: 'socket-closed' });
      });
      socket.once('open', () => resolve(socket));
      socket.once('error', reject);
    });
  }

  private request(message: Uint8Array, accept: (event: Parameters<Waiter>[0]) => boolean): Promise<Parameters<Waiter>[0]> {
    return new Promise((resolve) => {
      this.waiter = (event) => {
        if (!accept(event)) return;
        this.waiter = null;
        resolve(event);
      };
      this.socket!.send(message);
    });
  }

  private deliver(event: Parameters<Waiter>[0]): void {
    this.waiter?.(event);
  }

  private receive(data: Uint8Array): void {
    const decoder = decoding.createDecoder(data);
    decoding.readVarString(decoder);
    const type = decoding.readVarUint(decoder);
    if (type === messageAuth) {
      const kind = decoding.readVarUint(decoder);
      if (kind === authAuthenticated) this.deliver({ kind: 'authenticated' });
      else if (kind === authDenied) this.deliver({ kind: 'close', reason: decoding.readVarString(decoder) });
    } else if (type === messageSyncStatus) {
      this.deliver({ kind: 'status', ok: decoding.readVarInt(decoder) === 1 });
    } else if (type === messageClose) {
      this.deliver({ kind: 'close', reason: decoding.readVarString(decoder) });
    } else if (type === messageSync || type === messageSyncReply) {
      if (decoding.readVarUint(decoder) === syncStep2) this.deliver({ kind: 'state', update: decoding.readVarUint8Array(decoder) });
    }
  }

  private frame(type: number, write: (encoder: encoding.Encoder) => void): Uint8Array {
    const encoder = encoding.createEncoder();
    encoding.writeVarString(encoder, this.documentName);
    encoding.writeVarUint(encoder, type);
    write(encoder);
    return encoding.toUint8Array(encoder);
  }
}
