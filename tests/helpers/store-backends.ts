import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openSqliteStore } from '../../server/store/sqlite-store.ts';
import { openPostgresStore } from '../../server/store/pg-store.ts';
import type { Store } from '../../server/store/store.ts';
import { usePostgres, type Service } from './services.ts';

/** One store of a backend for one test, with a way behind its back into its database. */
export interface TestStore {
  store: Store;
  /** Runs one statement on the store's database through a connection of the test's own; `?` marks each parameter. */
  exec(sql: string, params?: unknown[]): Promise<void>;
  /** Closes the store and opens it again on the same data. */
  reopen(): Promise<Store>;
  /** Closes the store and removes its data. */
  dispose(): Promise<void>;
}

export interface StoreBackend {
  name: 'SQLite' | 'PostgreSQL';
  /** Before the tests of a file (beforeAll): starts what the backend needs. */
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  /** An empty store. */
  open(): Promise<TestStore>;
}

const sqlite: StoreBackend = {
  name: 'SQLite',
  async setUp() {},
  async tearDown() {},
  async open() {
    const dataDir = mkdtempSync(join(tmpdir(), 'tandem-store-'));
    let store: Store = openSqliteStore(dataDir);
    return {
      get store() {
        return store;
      },
      async exec(sql, params = []) {
        const db = new Database(join(dataDir, 'tandem.sqlite'));
        try {
          db.prepare(sql).run(...params);
        } finally {
          db.close();
        }
      },
      async reopen() {
        await store.close();
        store = openSqliteStore(dataDir);
        return store;
      },
      async dispose() {
        await store.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
};

let service: Service | null = null;

/**
 * Each store lives in a schema of its own (`search_path` set on every connection), so tests and
 * test files share one PostgreSQL server without seeing each other's rows.
 */
const postgres: StoreBackend = {
  name: 'PostgreSQL',
  async setUp() {
    service ??= await usePostgres();
  },
  async tearDown() {
    await service?.stop();
    service = null;
  },
  async open() {
    if (!service) throw new Error('PostgreSQL backend used before setUp()');
    const schema = `t_${randomUUID().replaceAll('-', '')}`;
    const admin = new pg.Client({ connectionString: service.url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    const url = postgresUrlIn(service.url, schema);
    let store = await openPostgresStore(url);
    return {
      get store() {
        return store;
      },
      async exec(sql, params = []) {
        let n = 0;
        await admin.query(`SET search_path TO ${schema}`);
        await admin.query(sql.replace(/\?/g, () => `$${++n}`), params);
      },
      async reopen() {
        await store.close();
        store = await openPostgresStore(url);
        return store;
      },
      async dispose() {
        await store.close();
        await admin.query(`DROP SCHEMA ${schema} CASCADE`);
        await admin.end();
      },
    };
  },
};

/** `url` with every connection's `search_path` set to `schema`. */
export function postgresUrlIn(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.toString();
}

/** Both backends, for `describe.each(storeBackends)('… (%s)', …)` with `name` as the label. */
export const storeBackends: readonly StoreBackend[] = [sqlite, postgres];
