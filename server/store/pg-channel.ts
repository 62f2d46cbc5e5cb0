import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** A PostgreSQL notification channel shared by the instances on one database and schema. */
export interface PgChannel {
  /** Tells the other instances `message` (a line of text without this instance's id). */
  notify(message: string): Promise<void>;
  /** Calls `listener(message)` for each message another instance notified. Returns the unsubscribe. */
  onRemote(listener: (message: string) => void): () => void;
  close(): Promise<void>;
}

export interface PgChannelOptions {
  /** The database's URL, for the listening connection of its own. */
  url: string;
  /** The pool that notifies and reads the schema. */
  pool: pg.Pool;
  /** The channel's name before the schema's. */
  topic: string;
}

/**
 * LISTEN/NOTIFY on the channel `<topic>.<schema>` (channels are database-wide: one per schema,
 * so that Tandems in other schemas are not told; a channel name is at most 63 bytes). One
 * dedicated connection listens; this instance's own messages are recognised by the instance id
 * in the payload and ignored. The listening connection reconnects if it is lost (once a second
 * until the database answers again); a message notified while it was down is missed, so every
 * user of a channel also looks at the store again on its own.
 */
export async function pgChannel({ url, pool, topic }: PgChannelOptions): Promise<PgChannel> {
  const instance = randomUUID();
  const { rows } = await pool.query<{ schema: string }>('SELECT current_schema() AS schema');
  const channel = `${topic}.${rows[0].schema}`.slice(0, 63);
  const listeners = new Set<(message: string) => void>();
  let closed = false;
  let client: pg.Client | null = null;

  const listen = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (notification) => {
      const payload = notification.payload ?? '';
      const space = payload.indexOf(' ');
      if (space < 0 || payload.slice(0, space) === instance) return;
      const message = payload.slice(space + 1);
      for (const listener of listeners) listener(message);
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
    async notify(message) {
      await pool.query('SELECT pg_notify($1, $2)', [channel, `${instance} ${message}`]);
    },
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
