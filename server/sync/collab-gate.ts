import * as decoding from 'lib0/decoding';
import type { Limits } from '../limits.ts';
import { TokenBucket } from '../token-bucket.ts';

/**
 * What the gate does with one inbound WebSocket frame: hand it to Hocuspocus, drop it
 * unread, or close the socket (`code`, `reason`).
 */
export type Verdict = { action: 'pass' } | { action: 'drop' } | { action: 'close'; code: number; reason: string };

/** The Hocuspocus message types the gate looks at (`MessageType` in @hocuspocus/server). */
const messageSync = 0;
const messageAwareness = 1;
const messageSyncReply = 4;
/** y-protocols sync sub-types. */
const syncStep2 = 1;
const syncUpdate = 2;

/** An honest provider sends its own awareness entry only; a few leave room for other clients. */
export const maxAwarenessEntries = 4;

const pass: Verdict = { action: 'pass' };
const drop: Verdict = { action: 'drop' };

/** Counts WebSockets per IP address and per token subject across the server. */
export class SocketCounts {
  private readonly perIp = new Map<string, number>();
  private readonly perSubject = new Map<string, number>();

  constructor(readonly limits: Limits) {}

  /** A gate for a new socket from `ip`, or null when that address has too many open. */
  open(ip: string): SocketGate | null {
    const count = this.perIp.get(ip) ?? 0;
    if (count >= this.limits.socketsPerIp) return null;
    this.perIp.set(ip, count + 1);
    return new SocketGate(this, ip);
  }

  /** @internal for SocketGate */
  addSubject(subject: string): boolean {
    const count = this.perSubject.get(subject) ?? 0;
    if (count >= this.limits.socketsPerSubject) return false;
    this.perSubject.set(subject, count + 1);
    return true;
  }

  /** @internal for SocketGate */
  release(ip: string, subjects: Iterable<string>): void {
    decrement(this.perIp, ip);
    for (const subject of subjects) decrement(this.perSubject, subject);
  }
}

/**
 * Everything the server tracks of one WebSocket: which token subjects it authenticated as,
 * which documents it may write, and its message budget. `inspect` is called on every frame
 * before Hocuspocus sees it and reads no more than the message header, except for awareness
 * updates (small, checked whole so that Hocuspocus never meets a malformed one).
 */
export class SocketGate {
  private readonly subjects = new Set<string>();
  /** Document name → whether this socket's authenticated connection to it may write. */
  private readonly writable = new Map<string, boolean>();
  private readonly messages: TokenBucket;
  private closed = false;

  constructor(
    private readonly counts: SocketCounts,
    private readonly ip: string,
  ) {
    this.messages = new TokenBucket(counts.limits.socketMessages);
  }

  /** Counts the socket for `subject`; false when that subject has too many sockets open. */
  admitSubject(subject: string): boolean {
    if (this.closed || this.subjects.has(subject)) return !this.closed;
    if (!this.counts.addSubject(subject)) return false;
    this.subjects.add(subject);
    return true;
  }

  /** Records that the socket's connection to `documentName` was authenticated, and how. */
  authenticated(documentName: string, readOnly: boolean): void {
    this.writable.set(documentName, !readOnly);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.counts.release(this.ip, this.subjects);
    this.subjects.clear();
  }

  inspect(frame: Uint8Array): Verdict {
    // LIMIT2: a socket's message budget.
    if (!this.messages.take()) return { action: 'close', code: 1008, reason: 'Too many messages' };
    try {
      const decoder = decoding.createDecoder(frame);
      const address = decoding.readVarString(decoder);
      const documentName = address.split('\0')[0];
      const type = decoding.readVarUint(decoder);
      if (type === messageSync || type === messageSyncReply) return this.inspectSync(documentName, decoding.readVarUint(decoder));
      // PRES5: awareness that does not decode, or has too many entries, never reaches Hocuspocus.
      if (type === messageAwareness) return isWellFormedAwareness(decoding.readVarUint8Array(decoder)) ? pass : drop;
      return pass;
    } catch {
      return { action: 'close', code: 1002, reason: 'Malformed message' };
    }
  }

  /**
   * LIMIT4: a read-only connection's document updates are dropped unread (Hocuspocus would
   * decode a sync step 2 to compare it with the document). A step 2 before authentication is
   * dropped too: an honest provider sends one only in answer to the server's step 1.
   */
  private inspectSync(documentName: string, syncType: number): Verdict {
    const writable = this.writable.get(documentName);
    if (syncType === syncStep2 && writable !== true) return drop;
    if (syncType === syncUpdate && writable === false) return drop;
    return pass;
  }
}

/** Whether `update` decodes as at most `maxAwarenessEntries` entries of JSON, and nothing more. */
function isWellFormedAwareness(update: Uint8Array): boolean {
  try {
    const decoder = decoding.createDecoder(update);
    const count = decoding.readVarUint(decoder);
    if (count > maxAwarenessEntries) return false;
    for (let i = 0; i < count; i++) {
      decoding.readVarUint(decoder);
      decoding.readVarUint(decoder);
      JSON.parse(decoding.readVarString(decoder));
    }
    return !decoding.hasContent(decoder);
  } catch {
    return false;
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const count = (counts.get(key) ?? 0) - 1;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}
