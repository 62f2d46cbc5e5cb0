import { setImmediate as nextTurn } from 'node:timers/promises';
import { waitFor, type Peer } from './peer.ts';

/**
 * A peer that counts which of its changes the server acknowledged. The provider counts one
 * unsynced change per update it sends and takes one off per acknowledgement (Hocuspocus's
 * SyncStatus), which the server sends in the order the updates came; so, with no handshake
 * outstanding, the first `sent − unsyncedChanges` changes are acknowledged. A label is pushed
 * before its change is made, as the provider counts the change inside the transaction.
 */
export class CountingWriter {
  readonly sent: string[] = [];
  acknowledged = 0;
  closed = false;

  constructor(readonly peer: Peer) {
    peer.provider.on('unsyncedChanges', ({ number }: { number: number }) => {
      if (!this.closed) this.acknowledged = Math.max(this.acknowledged, this.sent.length - number);
    });
    peer.provider.on('close', () => (this.closed = true));
  }

  async ready(): Promise<void> {
    await this.peer.synced;
    await waitFor(() => this.peer.provider.unsyncedChanges === 0);
  }

  change(label: string, write: () => void): void {
    this.sent.push(label);
    write();
  }

  get acknowledgedLabels(): string[] {
    return this.sent.slice(0, this.acknowledged);
  }
}

/** Makes changes as fast as the server acknowledges them (at most `window` outstanding) until `stop()`. */
export async function keepWriting(writer: CountingWriter, stop: () => boolean, write: (n: number) => void, window = 8): Promise<void> {
  for (let n = 0; !stop() && !writer.closed; ) {
    if (writer.peer.provider.unsyncedChanges < window) write(n++);
    await nextTurn();
  }
}

