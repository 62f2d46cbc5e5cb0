import type Database from 'better-sqlite3';
import type { Author } from '../../shared/notes/annotations.ts';
import type { SavedRunScope } from '../../shared/applier/run-scope.ts';
import type { ChangeVariants, NotReverted } from '../../shared/protocol/run-record.ts';
import { variantsColumn } from './run-rows.ts';
import { claimedStates } from '../../shared/protocol/run-states.ts';
import { leaves, reaches, stateIn } from './sqlite-run-states.ts';
import { revertibleRuns, type AppliedBatch, type Completion, type RunStore } from './run-store.ts';

type Lifecycle = Pick<
  RunStore,
  'claimRun' | 'renewLease' | 'requeueRun' | 'findBatch' | 'recordBatch' | 'completeRun' | 'failRun' | 'cancelRun' | 'decideRun' | 'decideItem' | 'chooseVariant' | 'storeScope' | 'revertRun' | 'reopenRun' | 'unrevertRun' | 'loadScope' | 'openScopes'
>;

/**
 * The run store's transitions over SQLite. Each is a conditional UPDATE (`… WHERE id = ? AND
 * state IN (…)`, the states the transition leaves in shared/protocol/run-states.ts) whose changed-row
 * count says whether it won, with the rows that go with it
 * written in the same transaction, so a transition and its bookkeeping never come apart.
 */
export function sqliteRunLifecycle(db: Database.Database): Lifecycle {
  const claim = db.prepare(
    `UPDATE runs SET ${reaches('claim')}, claimed_by = @agentId, claimed_by_name = @agentName,
       lease_expires_at = @leaseExpiresAt, updated_at = @now
     WHERE id = @id AND ${leaves('claim')}`,
  );
  const renew = db.prepare(
    `UPDATE runs SET lease_expires_at = @leaseExpiresAt, updated_at = @now
     WHERE id = @id AND ${stateIn(claimedStates)} AND claimed_by = @agentId AND lease_expires_at > @now`,
  );
  const requeue = db.prepare(
    `UPDATE runs SET ${reaches('leaseExpired')}, claimed_by = NULL, claimed_by_name = NULL, lease_expires_at = NULL,
       summary = NULL, updated_at = @now
     WHERE id = @id AND ${leaves('leaseExpired')} AND lease_expires_at <= @now`,
  );
  const holdsClaim = db.prepare<{ id: string; agentId: string }, { id: string }>(
    `SELECT id FROM runs WHERE id = @id AND ${stateIn(claimedStates)} AND claimed_by = @agentId`,
  );
  const touch = db.prepare('UPDATE runs SET updated_at = @now WHERE id = @id');
  const complete = db.prepare(
    `UPDATE runs SET ${reaches('complete')}, lease_expires_at = NULL, summary = @summary, updated_at = @now
     WHERE id = @id AND ${leaves('complete')} AND claimed_by = @agentId`,
  );
  const fail = db.prepare(
    `UPDATE runs SET ${reaches('fail')}, lease_expires_at = NULL, error = @message, updated_at = @now
     WHERE id = @id AND ${leaves('fail')} AND claimed_by = @agentId`,
  );
  const cancel = db.prepare(
    `UPDATE runs SET ${reaches('cancel')}, lease_expires_at = NULL, decided_by = @byId, decided_by_name = @byName, updated_at = @now
     WHERE id = @id AND ${leaves('cancel')}`,
  );
  const decideTo = (transition: 'accept' | 'discard') =>
    db.prepare(
      `UPDATE runs SET state = @state, decided_by = @byId, decided_by_name = @byName, updated_at = @now WHERE id = @id AND ${leaves(transition)}`,
    );
  const decide = { accepted: decideTo('accept'), discarded: decideTo('discard') };
  const inReview = db.prepare<[string], { id: string }>(`SELECT id FROM runs WHERE id = ? AND ${leaves('accept')}`);
  const decideOneItem = db.prepare(
    'UPDATE run_items SET decision = @decision WHERE run_id = @id AND instruction_id = @instructionId AND decision IS NULL',
  );
  const decideRestItems = db.prepare('UPDATE run_items SET decision = @decision WHERE run_id = @id AND decision IS NULL');
  const undecidedChanged = db.prepare<[string], { n: number }>(
    `SELECT COUNT(*) AS n FROM run_items WHERE run_id = ? AND decision IS NULL AND outcome = 'changed'`,
  );
  const anyAccepted = db.prepare<[string], { n: number }>(`SELECT COUNT(*) AS n FROM run_items WHERE run_id = ? AND decision = 'accepted'`);
  const clearDecisions = db.prepare('UPDATE run_items SET decision = NULL WHERE run_id = ?');

  const revert = db.prepare(
    `UPDATE runs SET reverted_at = @now, reverted_by = @byId, reverted_by_name = @byName, not_reverted = @notReverted, updated_at = @now
     WHERE id = @id AND ${leaves('revert')} AND reverted_at IS NULL AND EXISTS (SELECT 1 FROM run_scopes WHERE run_id = @id)`,
  );
  const unrevert = db.prepare(
    `UPDATE runs SET reverted_at = NULL, reverted_by = NULL, reverted_by_name = NULL, not_reverted = NULL, updated_at = @now
     WHERE id = @id AND ${leaves('undoRevert')} AND reverted_at IS NOT NULL`,
  );
  const reopen = db.prepare(
    `UPDATE runs SET ${reaches('undoDiscard')}, decided_by = NULL, decided_by_name = NULL, updated_at = @now WHERE id = @id AND ${leaves('undoDiscard')}`,
  );
  const holdsScope = db.prepare<[string], { id: string }>(
    `SELECT id FROM runs WHERE id = ? AND (state = 'review' OR (state = 'accepted' AND reverted_at IS NULL))`,
  );
  const pruneAcceptedScopes = db.prepare(
    `DELETE FROM run_scopes WHERE run_id IN (
       SELECT r.id FROM runs r JOIN run_scopes s ON s.run_id = r.id
       WHERE r.doc_id = (SELECT doc_id FROM runs WHERE id = @id) AND r.state = 'accepted'
       ORDER BY r.updated_at DESC, r.id DESC LIMIT -1 OFFSET @keep)`,
  );
  const resetItems = db.prepare(`UPDATE run_items SET outcome = 'pending', reason = NULL WHERE run_id = ?`);
  const markChanged = db.prepare(`UPDATE run_items SET outcome = 'changed' WHERE run_id = ? AND instruction_id = ?`);
  const selectItemOutcomes = db.prepare<[string], { position: number; instruction_id: string; outcome: string }>(
    'SELECT position, instruction_id, outcome FROM run_items WHERE run_id = ?',
  );
  const setOutcome = db.prepare('UPDATE run_items SET outcome = @outcome, reason = @reason WHERE run_id = @runId AND position = @position');
  const deleteChanges = db.prepare('DELETE FROM run_changes WHERE run_id = ?');
  const countChanges = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM run_changes WHERE run_id = ?');
  const insertChange = db.prepare(
    `INSERT INTO run_changes (run_id, position, block_id, instruction_id, op, before, after, variants)
     VALUES (@runId, @position, @blockId, @instructionId, @op, @before, @after, @variants)`,
  );
  const deleteBatches = db.prepare('DELETE FROM run_batches WHERE run_id = ?');
  const noteChange = db.prepare('UPDATE run_changes SET note = @note WHERE run_id = @runId AND position = @position');
  const selectBatch = db.prepare<[string, string], { response: string }>(
    'SELECT response FROM run_batches WHERE run_id = ? AND idempotency_key = ?',
  );
  const insertBatch = db.prepare('INSERT INTO run_batches (run_id, idempotency_key, response) VALUES (?, ?, ?)');
  const upsertScope = db.prepare(
    `INSERT INTO run_scopes (run_id, insertions, deletions, items) VALUES (@runId, @insertions, @deletions, @items)
     ON CONFLICT(run_id) DO UPDATE SET insertions = excluded.insertions, deletions = excluded.deletions, items = excluded.items`,
  );
  const deleteScope = db.prepare('DELETE FROM run_scopes WHERE run_id = ?');
  const selectScope = db.prepare<[string], ScopeRow>(
    'SELECT insertions, deletions, items FROM run_scopes WHERE run_id = ?',
  );
  const selectOpenScopes = db.prepare<[string], ScopeRow & { run_id: string }>(
    `SELECT s.run_id, s.insertions, s.deletions, s.items FROM run_scopes s JOIN runs r ON r.id = s.run_id
     WHERE r.doc_id = ? AND r.state IN ('claimed', 'review', 'accepted')`,
  );

  /** Forgets what a claim did: its changes, its batches, its scope, the items' outcomes. */
  const dropWork = (id: string) => {
    resetItems.run(id);
    deleteChanges.run(id);
    deleteBatches.run(id);
    deleteScope.run(id);
  };

  const requeueRun = db.transaction((id: string, now: number) => {
    if (requeue.run({ id, now }).changes === 0) return false;
    dropWork(id);
    return true;
  });

  const recordBatch = db.transaction((runId: string, agentId: string, now: number, batch: AppliedBatch) => {
    if (!holdsClaim.get({ id: runId, agentId })) return false;
    insertBatch.run(runId, batch.idempotencyKey, JSON.stringify(batch.response));
    let position = countOf(countChanges, runId);
    for (const change of batch.changes) {
      insertChange.run({ runId, position: position++, blockId: change.blockId, instructionId: change.instructionId, op: change.op, before: change.before, after: change.after, variants: variantsColumn(change) });
      markChanged.run(runId, change.instructionId);
    }
    upsertScope.run(scopeRow(runId, batch.scope));
    touch.run({ id: runId, now });
    return true;
  });

  const completeRun = db.transaction((id: string, agentId: string, now: number, completion: Completion) => {
    if (complete.run({ id, agentId, now, summary: completion.summary }).changes === 0) return false;
    for (const item of selectItemOutcomes.all(id)) {
      const reason = completion.refusals.get(item.instruction_id) ?? null;
      const outcome = item.outcome === 'changed' ? 'changed' : reason !== null ? 'refused' : 'unchanged';
      setOutcome.run({ runId: id, position: item.position, outcome, reason });
    }
    return true;
  });

  const failRun = db.transaction((id: string, agentId: string, now: number, message: string) => {
    if (fail.run({ id, agentId, now, message }).changes === 0) return false;
    dropWork(id);
    return true;
  });

  const cancelRun = db.transaction((id: string, now: number, by: Author) => {
    if (cancel.run({ id, now, byId: by.id, byName: by.name }).changes === 0) return false;
    dropWork(id);
    return true;
  });

  /** A run in review whose every item with changes is decided leaves review (REV12); its state after. */
  const settleRun = (id: string, now: number, by: Author | null): 'review' | 'accepted' | 'discarded' => {
    if (countOf(undecidedChanged, id) > 0) return 'review';
    const state = countOf(anyAccepted, id) > 0 ? 'accepted' : 'discarded';
    decideRestItems.run({ id, decision: state });
    decide[state].run({ id, state, now, byId: by?.id ?? null, byName: by?.name ?? null });
    if (state === 'discarded') deleteScope.run(id);
    else pruneAcceptedScopes.run({ id, keep: revertibleRuns });
    return state;
  };

  const decideRun = db.transaction((id: string, state: 'accepted' | 'discarded', now: number, by: Author | null, notes: ReadonlyMap<number, string>) => {
    if (!inReview.get(id)) return false;
    decideRestItems.run({ id, decision: state });
    for (const [position, note] of notes) noteChange.run({ runId: id, position, note });
    settleRun(id, now, by);
    return true;
  });

  const decideItem = db.transaction(
    (id: string, instructionId: string, decision: 'accepted' | 'discarded', now: number, by: Author, notes: ReadonlyMap<number, string>) => {
      if (!inReview.get(id)) return false;
      if (decideOneItem.run({ id, instructionId, decision }).changes === 0) return false;
      for (const [position, note] of notes) noteChange.run({ runId: id, position, note });
      return settleRun(id, now, by);
    },
  );

  const undecidedItem = db.prepare<{ id: string; instructionId: string }, { position: number }>(
    'SELECT position FROM run_items WHERE run_id = @id AND instruction_id = @instructionId AND decision IS NULL',
  );
  const chooseChange = db.prepare(
    'UPDATE run_changes SET after = @after, variants = @variants WHERE run_id = @id AND instruction_id = @instructionId AND variants IS NOT NULL',
  );
  const touchRun = db.prepare('UPDATE runs SET updated_at = @now WHERE id = @id');
  const chooseVariant = db.transaction(
    (id: string, instructionId: string, now: number, choice: { after: string; variants: ChangeVariants; scope: SavedRunScope }) => {
      if (!inReview.get(id) || !undecidedItem.get({ id, instructionId })) return false;
      const params = { id, instructionId, after: choice.after, variants: JSON.stringify(choice.variants) };
      if (chooseChange.run(params).changes === 0) return false;
      upsertScope.run(scopeRow(id, choice.scope));
      touchRun.run({ id, now });
      return true;
    },
  );

  const revertRun = db.transaction((id: string, now: number, by: Author, notReverted: readonly NotReverted[]) => {
    const params = { id, now, byId: by.id, byName: by.name, notReverted: JSON.stringify(notReverted) };
    if (revert.run(params).changes === 0) return false;
    deleteScope.run(id);
    return true;
  });

  return {
    async claimRun(id, agent, now, leaseExpiresAt) {
      return claim.run({ id, agentId: agent.id, agentName: agent.name, leaseExpiresAt, now }).changes === 1;
    },
    async renewLease(id, agentId, now, leaseExpiresAt) {
      return renew.run({ id, agentId, now, leaseExpiresAt }).changes === 1;
    },
    async requeueRun(id, now) {
      return requeueRun(id, now);
    },
    async findBatch(runId, idempotencyKey) {
      const row = selectBatch.get(runId, idempotencyKey);
      return row ? (JSON.parse(row.response) as unknown) : undefined;
    },
    async recordBatch(runId, agentId, now, batch) {
      return recordBatch(runId, agentId, now, batch);
    },
    async completeRun(id, agentId, now, completion) {
      return completeRun(id, agentId, now, completion);
    },
    async failRun(id, agentId, now, message) {
      return failRun(id, agentId, now, message);
    },
    async cancelRun(id, now, by) {
      return cancelRun(id, now, by);
    },
    async decideRun(id, state, now, by, notes = new Map()) {
      return decideRun(id, state, now, by ?? null, notes);
    },
    async decideItem(id, instructionId, decision, now, by, notes = new Map()) {
      return decideItem(id, instructionId, decision, now, by, notes);
    },
    async chooseVariant(id, instructionId, now, choice) {
      return chooseVariant(id, instructionId, now, choice);
    },
    async storeScope(runId, scope) {
      return db.transaction(() => {
        if (!holdsScope.get(runId)) return false;
        upsertScope.run(scopeRow(runId, scope));
        return true;
      })();
    },
    async revertRun(id, now, by, notReverted) {
      return revertRun(id, now, by, notReverted);
    },
    async unrevertRun(id, now) {
      return unrevert.run({ id, now }).changes === 1;
    },
    async reopenRun(id, now) {
      try {
        return db.transaction(() => {
          if (reopen.run({ id, now }).changes === 0) return false;
          clearDecisions.run(id);
          return true;
        })();
      } catch (error) {
        // The document has another outstanding run (runs_one_outstanding).
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return false;
        throw error;
      }
    },
    async loadScope(runId) {
      const row = selectScope.get(runId);
      return row ? toScope(row) : null;
    },
    async openScopes(docId) {
      return selectOpenScopes.all(docId).map((row) => ({ runId: row.run_id, scope: toScope(row) }));
    },
  };
}

interface ScopeRow {
  insertions: Buffer;
  deletions: Buffer;
  items: Buffer | null;
}

function toScope(row: ScopeRow): SavedRunScope {
  return { insertions: new Uint8Array(row.insertions), deletions: new Uint8Array(row.deletions), items: row.items ? new Uint8Array(row.items) : null };
}

/** The parameters of `upsertScope` for run `runId`'s `scope`. */
function scopeRow(runId: string, scope: SavedRunScope) {
  return { runId, insertions: toBuffer(scope.insertions), deletions: toBuffer(scope.deletions), items: scope.items ? toBuffer(scope.items) : null };
}

/** better-sqlite3 binds Buffers, not other Uint8Arrays. */
function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The number a `SELECT COUNT(*) AS n` statement gives for one id (such a statement always gives one row). */
function countOf(statement: Database.Statement<[string], { n: number }>, id: string): number {
  return statement.get(id)?.n ?? 0;
}
