import { describe, expect, it } from 'vitest';
import { Outbox } from '../../server/sync/outbox.ts';

/** A socket that records what it is asked to do. */
function recordingSocket() {
  const calls: string[] = [];
  return {
    calls,
    socket: {
      readyState: 1,
      send: (frame: unknown) => calls.push(`send ${String(frame)}`),
      close: (code?: number, reason?: string) => calls.push(`close ${code} ${reason}`),
    },
  };
}

describe('Outbox', () => {
  it('passes frames on at once when nothing is held', () => {
    const { calls, socket } = recordingSocket();
    const outbox = new Outbox(socket);
    outbox.send('a');
    outbox.close(1000, 'bye');
    expect(calls).toEqual(['send a', 'close 1000 bye']);
  });

  it('holds frames and a close in order until released, then passes on again', () => {
    const { calls, socket } = recordingSocket();
    const outbox = new Outbox(socket);
    outbox.hold();
    outbox.send('a');
    outbox.hold();
    outbox.send('b');
    expect(calls).toEqual([]);
    outbox.release();
    expect(calls).toEqual(['send a', 'send b']);
    outbox.send('c');
    expect(calls).toEqual(['send a', 'send b', 'send c']);
  });

  it('sends nothing held after a held close', () => {
    const { calls, socket } = recordingSocket();
    const outbox = new Outbox(socket);
    outbox.hold();
    outbox.send('a');
    outbox.close(4000, 'gone');
    outbox.send('b');
    outbox.release();
    expect(calls).toEqual(['send a', 'close 4000 gone']);
  });

  it('drops what it holds when discarded and closes the socket', () => {
    const { calls, socket } = recordingSocket();
    const outbox = new Outbox(socket);
    outbox.hold();
    outbox.send('ack');
    outbox.discard(1011, 'Update not stored');
    expect(calls).toEqual(['close 1011 Update not stored']);
  });
});
