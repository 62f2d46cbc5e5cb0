import type { WebSocketLike } from '@hocuspocus/server';

type Held = { frame: Parameters<WebSocketLike['send']>[0] } | { close: [code?: number, reason?: string] };

/**
 * What Hocuspocus sends on one socket (server/sync/collab-socket.ts, server/sync/yjs-socket.ts hand it
 * this instead of the socket). Frames pass at once, unless held: while an update the socket's
 * client sent waits for its append (Persistence commits the updates of one event-loop turn
 * together), everything sent on the socket, its acknowledgement first of all, waits in order;
 * `release` sends it once the update is on disk, `discard` drops it and closes the socket when
 * the append failed, so that no acknowledgement ever leaves before its update is durable (DUR1).
 */
export class Outbox implements WebSocketLike {
  private held: Held[] | null = null;

  constructor(private readonly socket: WebSocketLike) {}

  get readyState(): number {
    return this.socket.readyState;
  }

  send(frame: Parameters<WebSocketLike['send']>[0]): void {
    if (this.held) this.held.push({ frame });
    else this.socket.send(frame);
  }

  close(code?: number, reason?: string): void {
    if (this.held) this.held.push({ close: [code, reason] });
    else this.socket.close(code, reason);
  }

  /** Holds what is sent from now on, until `release` or `discard`. */
  hold(): void {
    this.held ??= [];
  }

  /** Sends what was held, in order, and stops holding. */
  release(): void {
    const held = this.held;
    this.held = null;
    for (const item of held ?? []) {
      if ('frame' in item) this.socket.send(item.frame);
      else return this.socket.close(...item.close);
    }
  }

  /** Drops what was held and closes the socket with `code`. */
  discard(code: number, reason: string): void {
    this.held = null;
    this.socket.close(code, reason);
  }
}
