import type Database from 'better-sqlite3';

/**
 * The tables of the whole run lifecycle (send → claim → apply → review). A run is outstanding
 * while it is queued, claimed or in review; the partial unique index `runs_one_outstanding`
 * allows one such run per document, so the rule holds under any concurrency, here and in
 * PostgreSQL (pg-migrations.ts has the same tables and index). `run_scopes` holds the undo scope of a run
 * that changed the text (shared/applier/run-scope.ts) until it is discarded, failed, given back or
 * reverted, or is no longer one of the document's last `revertibleRuns` accepted runs (REV8).
 */
const schema = `
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  doc_id TEXT NOT NULL REFERENCES docs(id),
  state TEXT NOT NULL CHECK (state IN ('queued', 'claimed', 'review', 'accepted', 'discarded', 'failed', 'cancelled')),
  created_by TEXT NOT NULL,
  created_by_name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  claimed_by TEXT,
  claimed_by_name TEXT,
  lease_expires_at INTEGER,
  decided_by TEXT,
  decided_by_name TEXT,
  summary TEXT,
  error TEXT,
  context_markdown TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS runs_one_outstanding ON runs (doc_id) WHERE state IN ('queued', 'claimed', 'review');
CREATE INDEX IF NOT EXISTS runs_by_doc ON runs (doc_id, created_at);
CREATE INDEX IF NOT EXISTS runs_by_state ON runs (state, created_at);
CREATE TABLE IF NOT EXISTS run_items (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  instruction_id TEXT NOT NULL,
  block_id TEXT NOT NULL,
  instruction_text TEXT NOT NULL,
  quote TEXT NOT NULL,
  current_text TEXT,
  drifted INTEGER NOT NULL DEFAULT 0,
  outcome TEXT NOT NULL DEFAULT 'pending' CHECK (outcome IN ('pending', 'changed', 'refused', 'unchanged')),
  reason TEXT,
  decision TEXT CHECK (decision IN ('accepted', 'discarded')),
  PRIMARY KEY (run_id, position)
);
CREATE TABLE IF NOT EXISTS run_changes (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  block_id TEXT NOT NULL,
  instruction_id TEXT NOT NULL,
  op TEXT NOT NULL CHECK (op IN ('replace_block', 'insert_after', 'delete_block', 'set_text', 'set_attribute', 'replace_element')),
  before TEXT,
  after TEXT,
  note TEXT,
  PRIMARY KEY (run_id, position)
);
CREATE TABLE IF NOT EXISTS run_batches (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  idempotency_key TEXT NOT NULL,
  response TEXT NOT NULL,
  PRIMARY KEY (run_id, idempotency_key)
);
CREATE TABLE IF NOT EXISTS run_scopes (
  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  insertions BLOB NOT NULL,
  deletions BLOB NOT NULL
);
`;

/** Columns added after the first version, each with the type it is added with. */
const addedColumns: Record<string, Record<string, string>> = {
  runs: {
    claimed_by_name: 'TEXT',
    decided_by: 'TEXT',
    decided_by_name: 'TEXT',
    reverted_at: 'INTEGER',
    reverted_by: 'TEXT',
    reverted_by_name: 'TEXT',
    not_reverted: 'TEXT',
  },
  run_items: {
    current_text: 'TEXT',
    drifted: 'INTEGER NOT NULL DEFAULT 0',
    decision: "TEXT CHECK (decision IN ('accepted', 'discarded'))",
    variants_wanted: 'INTEGER NOT NULL DEFAULT 1',
  },
  run_changes: { note: 'TEXT', variants: 'TEXT' },
  // REV12: the scope instruction by instruction (shared/applier/item-parts.ts).
  run_scopes: { items: 'BLOB' },
};

/**
 * Creates the run tables, and brings tables made by an earlier version up to this schema: the
 * `unchanged` outcome and the page ops' changes (PAGE7) (SQLite cannot change a CHECK
 * constraint in place, so `run_items` and `run_changes` are copied into new tables, column by
 * column), then the columns added since.
 */
export function migrateRunTables(db: Database.Database): void {
  db.exec(schema);
  widenCheck(db, 'run_items', "'unchanged'");
  widenCheck(db, 'run_changes', "'set_text'");
  for (const [table, columns] of Object.entries(addedColumns)) {
    const present = columnsOf(db, table);
    for (const [column, type] of Object.entries(columns)) {
      if (!present.includes(column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
    }
  }
  widenRunStates(db);
}

/**
 * Adds `cancelled` (RUN6) to the CHECK of `runs.state` of a table made before it. Other tables
 * refer to `runs`, so it is rebuilt the way SQLite's documentation gives for that (foreign keys
 * off, the legacy rename that leaves those references as they are): a new table from the stored
 * definition with the wider CHECK, every row copied, the old one dropped, its indexes made again.
 */
function widenRunStates(db: Database.Database): void {
  const found = db.prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'runs'").get();
  if (!found || found.sql.includes("'cancelled'")) return;
  const widened = found.sql.replace("'failed')", "'failed', 'cancelled')");
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number;
  db.pragma('foreign_keys = OFF');
  db.pragma('legacy_alter_table = ON');
  try {
    db.transaction(() => {
      const kept = columnsOf(db, 'runs').join(', ');
      db.exec('ALTER TABLE runs RENAME TO runs_old');
      db.exec(widened);
      db.exec(`INSERT INTO runs (${kept}) SELECT ${kept} FROM runs_old`);
      db.exec('DROP TABLE runs_old');
      db.exec(schema);
    })();
  } finally {
    db.pragma('legacy_alter_table = OFF');
    db.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
  }
}

/** Copies `table` into the current schema's table of that name unless its CHECK already names `value`. */
function widenCheck(db: Database.Database, table: string, value: string): void {
  const found = db.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
  if (!found || found.sql.includes(value)) return;
  db.transaction(() => {
    const kept = columnsOf(db, table).join(', ');
    db.exec(`ALTER TABLE ${table} RENAME TO ${table}_old`);
    db.exec(schema);
    db.exec(`INSERT INTO ${table} (${kept}) SELECT ${kept} FROM ${table}_old`);
    db.exec(`DROP TABLE ${table}_old`);
  })();
}

function columnsOf(db: Database.Database, table: string): string[] {
  return db.prepare<[], { name: string }>(`PRAGMA table_info(${table})`).all().map((column) => column.name);
}
