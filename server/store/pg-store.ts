import { pgInviteBook } from './pg-invites.ts';
import { pgAuthorshipBook } from './pg-authorship.ts';
import { pgVersionBook } from './pg-versions.ts';
import type { Store } from './store.ts';
import { docRowToRecord, partNamesOf, type DocRow } from './doc-rows.ts';
import { pgDocSearch } from './pg-doc-search.ts';
import { pgAssetStore } from './pg-assets.ts';
import { openPool, toBuffer, transaction } from './pg-db.ts';
import { migratePostgres } from './pg-migrations.ts';
import { pgUpdateLog } from './pg-update-log.ts';
import { pgRunStore } from './pg-runs.ts';
import { pgAnnotationDocIndex, pgAuditLog, pgRevocationList } from './pg-records.ts';
import { pgRunEvents } from './pg-run-events.ts';
import { pgChannel } from './pg-channel.ts';
import { forgetEndedRunsAsides, pgAsideBoard } from './pg-asides.ts';
import { mergeStored } from './update-log.ts';
import { pgAgentSightings } from './pg-agent-sightings.ts';

/**
 * The store in the PostgreSQL database at `url` (`DATABASE_URL`, SCALE1), migrated at open
 * (pg-migrations.ts). Several instances may share it: the run lifecycle's conditional updates
 * and its partial unique index decide between them, LISTEN/NOTIFY tells each of the others'
 * run changes, and the update log is appended asynchronously only (no inline appends, SCALE2). The
 * asides of claimed runs are kept in the database too, so any instance serves them (SCALE5), and
 * so is when each agent was last seen (SCALE6).
 */
export async function openPostgresStore(url: string): Promise<Store> {
  const pool = openPool(url);
  try {
    await migratePostgres(pool);
    await forgetEndedRunsAsides(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const updates = pgUpdateLog(pool);
  const runs = pgRunStore(pool);
  const events = await pgRunEvents({ url, pool, runs });
  const asideChannel = await pgChannel({ url, pool, topic: 'tandem_asides' });
  let closed: Promise<void> | undefined;

  return {
    updates,
    runs,
    annotationDocs: pgAnnotationDocIndex(pool),
    revocations: pgRevocationList(pool),
    audit: pgAuditLog(pool),
    asides: pgAsideBoard(pool, asideChannel),
    agentSightings: pgAgentSightings(pool),
    search: pgDocSearch(pool),
    assets: pgAssetStore(pool),
    invites: pgInviteBook(pool),
    authorship: pgAuthorshipBook(pool),
    versions: pgVersionBook(pool),
    async createDoc(record, states) {
      await transaction(pool, async (client) => {
        await client.query('INSERT INTO docs (id, title, kind, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)', [
          record.id,
          record.title,
          record.kind,
          record.createdAt,
          record.updatedAt,
        ]);
        for (const [name, state] of states) {
          await client.query(
            `INSERT INTO documents (name, data, updated_at) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
            [name, toBuffer(state), record.createdAt],
          );
        }
      });
    },
    async getDoc(id) {
      const { rows } = await pool.query<DocRow>('SELECT * FROM docs WHERE id = $1', [id]);
      return rows[0] ? docRowToRecord(rows[0]) : null;
    },
    async listDocs(where = 'live') {
      const { rows } = await pool.query<DocRow>(
        where === 'trash'
          ? 'SELECT * FROM docs WHERE deleted_at IS NOT NULL ORDER BY deleted_at DESC, id COLLATE "C"'
          : 'SELECT * FROM docs WHERE deleted_at IS NULL ORDER BY updated_at DESC, created_at DESC, id COLLATE "C"',
      );
      return rows.map(docRowToRecord);
    },
    async trashDoc(id, at) {
      const { rowCount } = await pool.query('UPDATE docs SET deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL', [id, at]);
      return rowCount === 1;
    },
    async restoreDoc(id, since) {
      const { rowCount } = await pool.query('UPDATE docs SET deleted_at = NULL WHERE id = $1 AND deleted_at IS NOT NULL AND deleted_at >= $2', [id, since]);
      return rowCount === 1;
    },
    async purgeTrash(before) {
      const { rows } = await pool.query<{ id: string }>('SELECT id FROM docs WHERE deleted_at IS NOT NULL AND deleted_at < $1', [before]);
      for (const { id } of rows) {
        await transaction(pool, async (client) => {
          // The row is locked and checked again: a restore that won the race keeps the document.
          const still = await client.query('SELECT 1 FROM docs WHERE id = $1 AND deleted_at IS NOT NULL AND deleted_at < $2 FOR UPDATE', [id, before]);
          if (still.rowCount !== 1) return;
          const names = partNamesOf(id);
          await client.query('DELETE FROM runs WHERE doc_id = $1', [id]);
          await client.query('DELETE FROM annotation_docs WHERE doc_id = $1', [id]);
          await client.query('DELETE FROM update_log WHERE name = ANY($1::text[])', [names]);
          await client.query('DELETE FROM documents WHERE name = ANY($1::text[])', [names]);
          await client.query('DELETE FROM invites WHERE doc_id = $1', [id]);
          await client.query('DELETE FROM doc_people WHERE doc_id = $1', [id]);
          await client.query('DELETE FROM text_authors WHERE doc_id = $1', [id]);
          await client.query('DELETE FROM doc_versions WHERE doc_id = $1', [id]);
          await client.query('DELETE FROM docs WHERE id = $1', [id]);
        });
      }
      return rows.map((row) => row.id);
    },
    async updateDoc(id, changes) {
      await pool.query('UPDATE docs SET title = $2, updated_at = $3 WHERE id = $1', [id, changes.title, changes.updatedAt]);
    },
    async loadState(name) {
      return mergeStored(await updates.read(name), { name });
    },
    onRemoteRunChanged: (listener) => events.onRemote(listener),
    close() {
      closed ??= (async () => {
        await events.close();
        await asideChannel.close();
        await pool.end();
      })();
      return closed;
    },
  };
}
