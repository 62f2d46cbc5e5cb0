import type { Store } from './store.ts';
import { openSqliteStore } from './sqlite-store.ts';
import { openPostgresStore } from './pg-store.ts';

/** The store the options name: PostgreSQL at `databaseUrl` when given (SCALE1), else SQLite in `dataDir`. */
export async function openStore(options: { dataDir: string; databaseUrl: string | null }): Promise<Store> {
  return options.databaseUrl ? openPostgresStore(options.databaseUrl) : openSqliteStore(options.dataDir);
}
