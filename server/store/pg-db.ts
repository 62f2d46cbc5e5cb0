import pg from 'pg';

/** A query runner: the pool, or the client of one transaction. */
export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

const int8 = 20;

/**
 * A pool on `url`. BIGINT columns (times in milliseconds, sequence numbers, counts) come back
 * as numbers: every one of them stays far below 2^53. A query that cannot get a connection
 * within 10 s fails (the database is gone) instead of holding its caller, an acknowledgement
 * among them, for ever.
 */
export function openPool(url: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 10_000,
    types: { getTypeParser: ((oid: number, format?: string) => (oid === int8 ? Number : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser },
  });
  // An idle client that loses its server (a restart) is dropped by the pool; its error is not the caller's.
  pool.on('error', () => {});
  return pool;
}

/** Runs `work` in one transaction on one client of `pool`: committed if it resolves, rolled back if it throws. */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** A unique index refused a write; `constraint` names it. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const { code, constraint: name } = (error ?? {}) as { code?: string; constraint?: string };
  return code === '23505' && name === constraint;
}

/** node-postgres binds Buffers as bytea, not other Uint8Arrays. */
export function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
