import type Database from 'better-sqlite3';
import { updateLogSchema } from './sqlite-update-log.ts';
import { runActivitySchema } from './sqlite-run-activity.ts';
import { docSearchSchema } from './sqlite-doc-search.ts';
import { assetsSchema } from './sqlite-assets.ts';
import { invitesSchema } from './sqlite-invites.ts';
import { authorshipSchema } from './sqlite-authorship.ts';
import { versionsSchema } from './sqlite-versions.ts';

/**
 * The changes to the schema of `tandem.sqlite` (rule DUR4) since its first version, in order. `PRAGMA
 * user_version` holds how many of them a database has had; the tables of the first version are
 * created with `IF NOT EXISTS` by their modules. Append only: never edit or reorder a step.
 */
const migrations: readonly string[] = [
  // 1: the update log.
  updateLogSchema,
  // 2: what the agent of each run told of its work (MODEL8).
  runActivitySchema,
  // 3: the trash (CAT3) and the full-text index of titles and texts (CAT2).
  `ALTER TABLE docs ADD COLUMN deleted_at INTEGER;
CREATE INDEX docs_trashed ON docs (deleted_at) WHERE deleted_at IS NOT NULL;
${docSearchSchema}`,
  // 4: the images uploaded into documents (IMG3).
  assetsSchema,
  // 5: invites and the people who joined by them (INV1–INV6).
  invitesSchema,
  // 6: the owner of each Yjs client id of a text document (WHO1, WHO2).
  authorshipSchema,
  // 7: the versions of each document (HIST1).
  versionsSchema,
];

/** Brings `db` up to the latest schema, each step in its own transaction with its new version number. */
export function migrate(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(`tandem.sqlite has schema version ${current}, newer than this server's ${migrations.length}`);
  }
  for (let version = current + 1; version <= migrations.length; version++) {
    db.transaction(() => {
      db.exec(migrations[version - 1]);
      db.pragma(`user_version = ${version}`);
    })();
  }
}
