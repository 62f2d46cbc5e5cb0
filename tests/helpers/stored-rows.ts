/**
 * What a test server's database holds for one Hocuspocus document, read behind the server's back
 * through a connection of the test's own, on SQLite (`DATA_DIR/tandem.sqlite`) and PostgreSQL
 * alike: the rows themselves, not what the store's code makes of them.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

export interface StoredRows {
  /** The `documents` row's data (the state the last compaction wrote), or null when there is none. */
  state: Uint8Array | null;
  /** The data of each of the document's `update_log` rows, in the order of their sequence numbers. */
  log: Uint8Array[];
}

/** Where a test server keeps its data: PostgreSQL at `databaseUrl` when it is not null, else SQLite in `dataDir`. */
export interface StoredAt {
  dataDir: string;
  databaseUrl: string | null;
}

const selectState = 'SELECT data FROM documents WHERE name = $1';
const selectLog = 'SELECT data FROM update_log WHERE name = $1 ORDER BY seq';

/** The rows of the document `name`, the state and the log read in one snapshot. */
export async function storedRows(at: StoredAt, name: string): Promise<StoredRows> {
  if (at.databaseUrl === null) {
    const db = new Database(join(at.dataDir, 'tandem.sqlite'), { readonly: true });
    try {
      const sqlite = (sql: string) => db.prepare<[string], { data: Buffer }>(sql.replace('$1', '?'));
      const read = db.transaction(() => ({
        state: sqlite(selectState).get(name)?.data ?? null,
        log: sqlite(selectLog).all(name).map((row) => row.data),
      }));
      const rows = read();
      return { state: rows.state && new Uint8Array(rows.state), log: rows.log.map((data) => new Uint8Array(data)) };
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: at.databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    const state = await client.query<{ data: Buffer }>(selectState, [name]);
    const log = await client.query<{ data: Buffer }>(selectLog, [name]);
    await client.query('COMMIT');
    return { state: state.rows[0] ? new Uint8Array(state.rows[0].data) : null, log: log.rows.map((row) => new Uint8Array(row.data)) };
  } finally {
    await client.end();
  }
}

/** How many `update_log` rows the database holds: of the document `name`, or of every document when it is null. */
export async function loggedCount(at: StoredAt, name: string | null = null): Promise<number> {
  const sql = `SELECT count(*) AS n FROM update_log${name === null ? '' : ' WHERE name = $1'}`;
  const params = name === null ? [] : [name];
  if (at.databaseUrl === null) {
    const db = new Database(join(at.dataDir, 'tandem.sqlite'), { readonly: true });
    try {
      return db.prepare<unknown[], { n: number }>(sql.replace('$1', '?')).get(...params)!.n;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: at.databaseUrl });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>(sql, params)).rows[0].n);
  } finally {
    await client.end();
  }
}
