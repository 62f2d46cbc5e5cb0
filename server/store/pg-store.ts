import type { DocKind } from '../../shared/model/doc-layout.ts';
import type { DocRecord, Store } from './store.ts';
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

interface DocRow {
  id: string;
  title: string;
  kind: string;
  created_at: number;
  updated_at: number;
}

/**
 * The store in the PostgreSQL database at `url` (`DATABASE_URL`, SCALE1), migrated at open
 * (pg-migrations.ts). Several instances may share it: the run lifecycle's conditional updates
 * and its partial unique index decide between them, LISTEN/NOTIFY tells each of the others'
 * run changes, and the update log is appended asynchronously (AsyncUpdateLog, SCALE2). The
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
  const events = await pgRunEvents(url, pool, runs);
  const asideChannel = await pgChannel(url, pool, 'tandem_asides');
  let closed: Promise<void> | undefined;

  return {
    updates,
    runs,
    annotationDocs: pgAnnotationDocIndex(pool),
    revocations: pgRevocationList(pool),
    audit: pgAuditLog(pool),
    asides: pgAsideBoard(pool, asideChannel),
    agentSightings: pgAgentSightings(pool),
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
      return rows[0] ? toRecord(rows[0]) : null;
    },
    async listDocs() {
      const { rows } = await pool.query<DocRow>('SELECT * FROM docs ORDER BY updated_at DESC, created_at DESC, id COLLATE "C"');
      return rows.map(toRecord);
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

function toRecord(row: DocRow): DocRecord {
  return { id: row.id, title: row.title, kind: toKind(row.kind), createdAt: row.created_at, updatedAt: row.updated_at };
}

function toKind(kind: string): DocKind {
  return kind === 'page' ? 'page' : 'text';
}
