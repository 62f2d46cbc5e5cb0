/** The servers a benchmark can start, and the messages between it and a server process. */

/**
 * - `tandem`: Tandem's own server (auth, persistence in SQLite, metadata, HTTP API, static client).
 * - `bare`: `@hocuspocus/server` with no extension at all (in memory, no auth).
 * - `bare-sqlite`: the same with the persistence of the stock `@hocuspocus/extension-sqlite`
 *   (one full-state blob per document in `<dataDir>/hocuspocus.sqlite`, default SQLite settings).
 */
export type ServerKind = 'tandem' | 'bare' | 'bare-sqlite';

export interface ServerSpec {
  kind: ServerKind;
  /** Required for `tandem` and `bare-sqlite`. */
  dataDir?: string;
  /** The built client Tandem serves (`tandem` only). */
  distDir?: string;
  /** `tandem` only: PostgreSQL instead of SQLite, and Redis to share documents with other instances. */
  databaseUrl?: string;
  redisUrl?: string;
  /** `tandem` only: 'off' runs no built-in agent, for a benchmark that acts as the agent itself. */
  agent?: 'off';
}

export interface ServerAddress {
  httpUrl: string;
  /** Where providers connect. */
  wsUrl: string;
  /** An editor's token for Tandem; a placeholder for the others, which check none. */
  token: string;
}

export type ServerRequest = { id: number; type: 'memory' | 'cpu' | 'stall' | 'stop' };

/** Sent by a `bare-sqlite` server after each write to its store. */
export interface StoredMessage {
  type: 'stored';
  name: string;
  /** The state vector of what was written, base64. */
  stateVector: string;
}

/** The table of `@hocuspocus/extension-sqlite`. */
export const sqliteSchema = 'CREATE TABLE IF NOT EXISTS "documents" ("name" varchar(255) NOT NULL, "data" blob NOT NULL, UNIQUE(name))';
