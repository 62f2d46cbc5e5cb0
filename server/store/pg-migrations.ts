import { pgAuthorshipSchema } from './pg-authorship.ts';
import { pgVersionsSchema } from './pg-versions.ts';
import type pg from 'pg';
import { transaction } from './pg-db.ts';

/**
 * The schema of Tandem's PostgreSQL database (SCALE1), as numbered steps. `schema_migrations`
 * holds the numbers applied; each step runs in its own transaction with its number. Append
 * only: never edit or reorder a step. Step 1 is the SQLite schema as of its migration 1 (the
 * update log) with the run columns added since: BIGINT for times, BYTEA for blobs, BOOLEAN for
 * flags, and one global sequence for the update log (instances append concurrently).
 */
const migrations: readonly string[] = [
  `
CREATE TABLE docs (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  kind TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE TABLE documents (
  name TEXT PRIMARY KEY,
  data BYTEA NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE TABLE update_log (
  name TEXT NOT NULL,
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  data BYTEA NOT NULL,
  PRIMARY KEY (name, seq)
);
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  doc_id TEXT NOT NULL REFERENCES docs(id),
  state TEXT NOT NULL CHECK (state IN ('queued', 'claimed', 'review', 'accepted', 'discarded', 'failed')),
  created_by TEXT NOT NULL,
  created_by_name TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  claimed_by TEXT,
  claimed_by_name TEXT,
  lease_expires_at BIGINT,
  decided_by TEXT,
  decided_by_name TEXT,
  reverted_at BIGINT,
  reverted_by TEXT,
  reverted_by_name TEXT,
  not_reverted TEXT,
  summary TEXT,
  error TEXT,
  context_markdown TEXT NOT NULL
);
CREATE UNIQUE INDEX runs_one_outstanding ON runs (doc_id) WHERE state IN ('queued', 'claimed', 'review');
CREATE INDEX runs_by_doc ON runs (doc_id, created_at);
CREATE INDEX runs_by_state ON runs (state, created_at);
CREATE TABLE run_items (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  instruction_id TEXT NOT NULL,
  block_id TEXT NOT NULL,
  instruction_text TEXT NOT NULL,
  quote TEXT NOT NULL,
  current_text TEXT,
  drifted BOOLEAN NOT NULL DEFAULT false,
  outcome TEXT NOT NULL DEFAULT 'pending' CHECK (outcome IN ('pending', 'changed', 'refused', 'unchanged')),
  reason TEXT,
  PRIMARY KEY (run_id, position)
);
CREATE TABLE run_changes (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  block_id TEXT NOT NULL,
  instruction_id TEXT NOT NULL,
  op TEXT NOT NULL CHECK (op IN ('replace_block', 'insert_after', 'delete_block')),
  before TEXT,
  after TEXT,
  note TEXT,
  PRIMARY KEY (run_id, position)
);
CREATE TABLE run_batches (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  idempotency_key TEXT NOT NULL,
  response TEXT NOT NULL,
  PRIMARY KEY (run_id, idempotency_key)
);
CREATE TABLE run_scopes (
  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  insertions BYTEA NOT NULL,
  deletions BYTEA NOT NULL
);
CREATE TABLE annotation_docs (
  annotation_id TEXT PRIMARY KEY,
  doc_id TEXT NOT NULL REFERENCES docs(id)
);
CREATE TABLE revoked_tokens (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  jti TEXT NOT NULL UNIQUE,
  revoked_at BIGINT NOT NULL
);
CREATE TABLE audit_log (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at BIGINT NOT NULL,
  doc_id TEXT,
  action TEXT NOT NULL,
  actor_id TEXT NOT NULL,
  actor_name TEXT NOT NULL,
  actor_role TEXT NOT NULL,
  run_id TEXT,
  token_id TEXT
);
CREATE INDEX audit_log_by_doc ON audit_log (doc_id, id);
`,
  // Step 2: page ops in run changes (PAGE7) and the agent's activity per run (MODEL8).
  `
ALTER TABLE run_changes DROP CONSTRAINT run_changes_op_check;
ALTER TABLE run_changes ADD CONSTRAINT run_changes_op_check
  CHECK (op IN ('replace_block', 'insert_after', 'delete_block', 'set_text', 'set_attribute', 'replace_element'));
CREATE TABLE run_activity (
  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  model TEXT,
  lines TEXT NOT NULL DEFAULT '[]',
  input_tokens BIGINT,
  output_tokens BIGINT,
  cached_input_tokens BIGINT
);
`,
  // Step 3: the asides of claimed runs, shared by the instances (ASIDE8, SCALE5).
  `
CREATE TABLE asides (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  aside_id TEXT NOT NULL UNIQUE,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  doc_id TEXT NOT NULL,
  record TEXT NOT NULL,
  mirrored BOOLEAN NOT NULL,
  delivered BOOLEAN NOT NULL DEFAULT FALSE,
  open_question BOOLEAN NOT NULL
);
CREATE INDEX asides_by_run ON asides (run_id, seq);
`,
  // Step 4: a run an editor cancelled (RUN6).
  `
ALTER TABLE runs DROP CONSTRAINT runs_state_check;
ALTER TABLE runs ADD CONSTRAINT runs_state_check
  CHECK (state IN ('queued', 'claimed', 'review', 'accepted', 'discarded', 'failed', 'cancelled'));
`,
  // Step 5: review item by item (REV12).
  `
ALTER TABLE run_items ADD COLUMN decision TEXT CHECK (decision IN ('accepted', 'discarded'));
`,
  // Step 6: the agents every instance has seen (RUN7, SCALE6).
  `
CREATE TABLE agent_sightings (
  sub TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  doc TEXT,
  model TEXT,
  last_seen BIGINT NOT NULL,
  held_until BIGINT
);
`,
  // Step 7: the trash (CAT3) and the full-text index of titles and texts (CAT2).
  `
ALTER TABLE docs ADD COLUMN deleted_at BIGINT;
CREATE INDEX docs_trashed ON docs (deleted_at) WHERE deleted_at IS NOT NULL;
CREATE TABLE doc_search (
  doc_id TEXT PRIMARY KEY REFERENCES docs(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  indexed_at BIGINT NOT NULL,
  tsv tsvector GENERATED ALWAYS AS (setweight(to_tsvector('simple', title), 'A') || setweight(to_tsvector('simple', body), 'B')) STORED
);
CREATE INDEX doc_search_tsv ON doc_search USING GIN (tsv);
`,
  // Step 8: the images uploaded into documents (IMG3).
  `
CREATE TABLE assets (
  doc_id TEXT NOT NULL REFERENCES docs(id) ON DELETE CASCADE,
  asset_id TEXT NOT NULL,
  type TEXT NOT NULL,
  data BYTEA NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (doc_id, asset_id)
);
`,
  // Step 9: invites and the people who joined by them (INV1–INV6).
  `
CREATE TABLE invites (
  id TEXT PRIMARY KEY,
  code_hash TEXT NOT NULL UNIQUE,
  doc_id TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('editor', 'commenter', 'viewer')),
  created_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT,
  max_uses INTEGER,
  uses INTEGER NOT NULL DEFAULT 0,
  grant_until BIGINT,
  revoked_at BIGINT
);
CREATE INDEX invites_by_doc ON invites (doc_id, created_at);
CREATE TABLE doc_people (
  doc_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  name TEXT NOT NULL,
  role TEXT NOT NULL,
  token_id TEXT NOT NULL,
  invite_id TEXT NOT NULL,
  joined_at BIGINT NOT NULL,
  last_seen BIGINT NOT NULL,
  PRIMARY KEY (doc_id, subject)
);
`,
  // Step 10: the owner of each Yjs client id of a text document (WHO1, WHO2).
  pgAuthorshipSchema,
  // Step 11: the versions of each document (HIST1).
  pgVersionsSchema,
  // Step 12: variants (VAR1): how many answers an instruction asked for, the candidates of a change.
  `
ALTER TABLE run_items ADD COLUMN variants_wanted INTEGER NOT NULL DEFAULT 1;
ALTER TABLE run_changes ADD COLUMN variants TEXT;
`,
  // Step 13: a run's scope instruction by instruction (REV12, shared/applier/item-parts.ts).
  `
ALTER TABLE run_scopes ADD COLUMN items BYTEA;
`,
];

/** An arbitrary key of the advisory lock that lets one instance at a time migrate. */
const migrationLock = 7_406_331;

/** Brings the database up to the latest schema; instances starting together take turns. */
export async function migratePostgres(pool: pg.Pool): Promise<void> {
  await transaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLock]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
  });
  for (;;) {
    const done = await transaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLock]);
      const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
      const current = rows[0].version ?? 0;
      if (current > migrations.length) {
        throw new Error(`The database has schema version ${current}, newer than this server's ${migrations.length}`);
      }
      if (current === migrations.length) return true;
      await client.query(migrations[current]);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [current + 1]);
      return false;
    });
    if (done) return;
  }
}
