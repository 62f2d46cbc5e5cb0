import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { RunStore } from './run-store.ts';


export interface RunEvents {
  onRemote(listener: (docId: string) => void): () => void;
  close(): Promise<void>;
}

/**
 * SCALE3: tells the other instances on the database that a run of a document changed, with
 * PostgreSQL's LISTEN/NOTIFY: every committed run write of this instance notifies the channel
 * `tandem_runs.<schema>` before it resolves, and one dedicated connection listens for those of
 * the others (its own are recognised by the instance id in the payload and ignored). The
 * listening connection reconnects if it is lost; a change notified while it was down is missed,
 * and the long polls it would have woken find the run at their next look at the store (each
 * poll looks once a second).
 */
export async function pgRunEvents(url: string, pool: pg.Pool, runs: RunStore): Promise<RunEvents> {
  const instance = randomUUID();
  // Channels are database-wide: one per schema, so that Tandems in other schemas are not told
  // (a channel name is at most 63 bytes).
  const { rows } = await pool.query<{ schema: string }>('SELECT current_schema() AS schema');
  const channel = `tandem_runs.${rows[0].schema}`.slice(0, 63);
  const listeners = new Set<(docId: string) => void>();
  let closed = false;
  let client: pg.Client | null = null;

  runs.onRunChanged(async (_runId, docId) => {
    await pool.query('SELECT pg_notify($1, $2)', [channel, `${instance} ${docId}`]);
  });

  const listen = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (message) => {
      const [from, docId] = (message.payload ?? '').split(' ');
      if (from === instance || !docId) return;
      for (const listener of listeners) listener(docId);
    });
    next.on('error', () => {
      void next.end().catch(() => {});
      relisten();
    });
    await next.connect();
    await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    client = next;
    if (closed) await next.end();
  };
  // Once a second until the database answers again; one retry at a time.
  let retry: NodeJS.Timeout | null = null;
  const relisten = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      void listen().catch(relisten);
    }, 1000);
    retry.unref();
  };

  await listen();
  return {
    onRemote(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
