import type Database from 'better-sqlite3';
import { decidedRunStates, outstandingRunStates } from '../../shared/protocol/run-record.ts';
import type { NewRun, RunStore, StoredRun } from './run-store.ts';
import { toStoredRun, type ChangeRow, type ItemRow, type RunRow } from './run-rows.ts';
import { migrateRunTables } from './sqlite-runs-schema.ts';
import { sqliteRunLifecycle } from './sqlite-run-lifecycle.ts';
import { withRunChanges } from './run-changes.ts';
import { sqliteRunActivity } from './sqlite-run-activity.ts';
import { leaves, stateIn } from './sqlite-run-states.ts';
import { runTransitions } from '../../shared/protocol/run-states.ts';
import { writtenRow } from './written-row.ts';

/** The run store over an open better-sqlite3 handle; creates (or migrates) its tables. */
export function sqliteRunStore(db: Database.Database): RunStore {
  migrateRunTables(db);

  const insertRun = db.prepare(
    `INSERT INTO runs (id, doc_id, state, created_by, created_by_name, created_at, updated_at, context_markdown)
     VALUES (@id, @docId, '${runTransitions.send.to}', @createdById, @createdByName, @createdAt, @createdAt, @contextMarkdown)`,
  );
  const insertItem = db.prepare(
    `INSERT INTO run_items (run_id, position, instruction_id, block_id, instruction_text, quote, current_text, drifted, variants_wanted)
     VALUES (@runId, @position, @instructionId, @blockId, @instruction, @quote, @currentText, @drifted, @variantsWanted)`,
  );
  const selectRun = db.prepare<[string], RunRow>('SELECT * FROM runs WHERE id = ?');
  const selectDocOfRun = db.prepare<[string], { doc_id: string }>('SELECT doc_id FROM runs WHERE id = ?');
  const selectRunsOfDoc = db.prepare<[string], RunRow>('SELECT * FROM runs WHERE doc_id = ? ORDER BY created_at DESC, id DESC');
  const selectMirrored = db.prepare<[string, string, number, string, number], RunRow>(
    `SELECT * FROM runs WHERE id IN (
       SELECT id FROM runs WHERE doc_id = ? AND ${stateIn(outstandingRunStates)}
       UNION ALL
       SELECT id FROM (SELECT id FROM runs WHERE doc_id = ? AND NOT ${stateIn(outstandingRunStates)} ORDER BY created_at DESC, id DESC LIMIT ?)
       UNION ALL
       SELECT id FROM (SELECT id FROM runs WHERE doc_id = ? AND ${stateIn(decidedRunStates)} ORDER BY created_at DESC, id DESC LIMIT ?)
     ) ORDER BY created_at DESC, id DESC`,
  );
  const selectOutstanding = db.prepare<[string], RunRow>(
    `SELECT * FROM runs WHERE doc_id = ? AND ${stateIn(outstandingRunStates)}`,
  );
  const selectQueued = db.prepare<[], RunRow>(`SELECT * FROM runs WHERE ${leaves('claim')} ORDER BY created_at, id`);
  const selectExpired = db.prepare<[number], RunRow>(
    `SELECT * FROM runs WHERE ${leaves('leaseExpired')} AND lease_expires_at <= ? ORDER BY lease_expires_at, id`,
  );
  const selectItems = db.prepare<[string], ItemRow>('SELECT * FROM run_items WHERE run_id = ? ORDER BY position');
  const selectChanges = db.prepare<[string], ChangeRow>('SELECT * FROM run_changes WHERE run_id = ? ORDER BY position');
  const activity = sqliteRunActivity(db);

  const createRun = db.transaction((run: NewRun) => {
    insertRun.run({
      id: run.id,
      docId: run.docId,
      createdById: run.createdBy.id,
      createdByName: run.createdBy.name,
      createdAt: run.createdAt,
      contextMarkdown: run.contextMarkdown,
    });
    run.items.forEach((item, position) =>
      insertItem.run({ runId: run.id, position, ...item, currentText: item.currentText ?? null, drifted: item.drifted ? 1 : 0, variantsWanted: item.variantsWanted ?? 1 }),
    );
  });

  function load(row: RunRow): StoredRun {
    return { ...toStoredRun(row, selectItems.all(row.id), selectChanges.all(row.id)), activity: activity.activityOf(row.id) };
  }

  const inner: Omit<RunStore, 'onRunChanged'> = {
    async createRun(run) {
      try {
        createRun(run);
      } catch (error) {
        if (isOutstandingViolation(error)) return { ok: false, reason: 'outstanding' };
        throw error;
      }
      return { ok: true, run: load(writtenRow(selectRun.get(run.id), `run ${run.id}`)) };
    },
    async getRun(id) {
      const row = selectRun.get(id);
      return row ? load(row) : null;
    },
    async listRuns(docId) {
      return selectRunsOfDoc.all(docId).map(load);
    },
    async mirroredRuns(docId, window) {
      return selectMirrored.all(docId, docId, window.finished, docId, window.decided).map(load);
    },
    async outstandingRun(docId) {
      const row = selectOutstanding.get(docId);
      return row ? load(row) : null;
    },
    async listQueued() {
      return selectQueued.all().map(load);
    },
    async expiredClaims(now) {
      return selectExpired.all(now).map(load);
    },
    async recordActivity(runId, agentId, now, report) {
      return activity.recordActivity(runId, agentId, now, report);
    },
    ...sqliteRunLifecycle(db),
  };
  return withRunChanges(inner, async (runId) => selectDocOfRun.get(runId)?.doc_id ?? null);
}

/** The unique index on outstanding runs refused the insert (not, say, a duplicate run id). */
function isOutstandingViolation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' && error.message.includes('runs.doc_id');
}
