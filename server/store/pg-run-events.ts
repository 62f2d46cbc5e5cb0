import type pg from 'pg';
import { pgChannel } from './pg-channel.ts';
import type { RunStore } from './run-store.ts';

export interface RunEvents {
  onRemote(listener: (docId: string) => void): () => void;
  close(): Promise<void>;
}

/**
 * SCALE3: tells the other instances on the database that a run of a document changed: every
 * committed run write of this instance notifies the channel `tandem_runs.<schema>`
 * (pg-channel.ts) before it resolves. A change notified while an instance's listening
 * connection was down is missed there, and the long polls it would have woken find the run at
 * their next look at the store (each poll looks once a second).
 */
export async function pgRunEvents({ url, pool, runs }: { url: string; pool: pg.Pool; runs: RunStore }): Promise<RunEvents> {
  const channel = await pgChannel({ url, pool, topic: 'tandem_runs' });
  runs.onRunChanged(async (_runId, docId) => {
    await channel.notify(docId);
  });
  return {
    onRemote(listener) {
      return channel.onRemote((docId) => {
        if (docId) listener(docId);
      });
    },
    close: () => channel.close(),
  };
}
