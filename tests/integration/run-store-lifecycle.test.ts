import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../server/store/sqlite-store.ts';
import { revertibleRuns, type AppliedBatch } from '../../server/store/run-store.ts';
import type { Store } from '../../server/store/store.ts';
import { storeBackends, type TestStore } from '../helpers/store-backends.ts';

/*
 * The run store's lifecycle transitions (server/store/run-store.ts): each is one conditional
 * step, so of concurrent callers exactly one wins, and each takes its bookkeeping with it.
 */

const bot = { id: 'bot', name: 'Bot' };
const scope = { insertions: new Uint8Array([1, 2]), deletions: new Uint8Array([3]), items: new Uint8Array([4, 5]) };

/** The document doc1 and its queued run r1 of three instructions. */
async function seed(store: Store): Promise<void> {
  await store.createDoc({ id: 'doc1', title: 'doc1', kind: 'text', createdAt: 1, updatedAt: 1 }, new Map());
  await store.runs.createRun({
    id: 'r1',
    docId: 'doc1',
    createdBy: { id: 'ed', name: 'Ed' },
    createdAt: 1000,
    contextMarkdown: 'text',
    items: [
      { instructionId: 'i1', blockId: 'b1', instruction: 'uppercase', quote: 'a' },
      { instructionId: 'i2', blockId: 'b2', instruction: 'delete', quote: 'b' },
      { instructionId: 'i3', blockId: 'b3', instruction: 'sing', quote: 'c' },
    ],
  });
}

function batch(key: string, instructionId = 'i1'): AppliedBatch {
  return {
    idempotencyKey: key,
    response: { applied: 1 },
    changes: [{ op: 'replace_block', blockId: 'b1', instructionId, before: 'a', after: 'A' }],
    scope,
  };
}

describe.each(storeBackends)('the run lifecycle in $name', (backend) => {
  let opened: TestStore;
  let store: Store;

  beforeAll(() => backend.setUp());
  afterAll(() => backend.tearDown());
  beforeEach(async () => {
    opened = await backend.open();
    store = opened.store;
    await seed(store);
  });
  afterEach(() => opened.dispose());

  it('lets exactly one of concurrent claims win', async () => {
    const wins = await Promise.all(['a', 'b', 'c'].map((id) => store.runs.claimRun('r1', { id, name: id }, 2000, 5000)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    const run = await store.runs.getRun('r1');
    expect(run).toMatchObject({ state: 'claimed', leaseExpiresAt: 5000, updatedAt: 2000 });
    expect(run?.claimedBy?.id).toBe(['a', 'b', 'c'][wins.indexOf(true)]);
    expect(await store.runs.listQueued()).toEqual([]);
  });

  it('renews only a live lease of the agent holding it', async () => {
    await store.runs.claimRun('r1', bot, 2000, 5000);
    expect(await store.runs.renewLease('r1', 'other', 3000, 9000)).toBe(false);
    expect(await store.runs.renewLease('r1', 'bot', 3000, 9000)).toBe(true);
    expect(await store.runs.renewLease('r1', 'bot', 9000, 12000)).toBe(false);
    expect((await store.runs.getRun('r1'))?.leaseExpiresAt).toBe(9000);
  });

  it('[RUN3] requeues an expired claim, dropping its changes, batches, scope and outcomes', async () => {
    await store.runs.claimRun('r1', bot, 2000, 5000);
    expect(await store.runs.recordBatch('r1', 'bot', 2500, batch('k1'))).toBe(true);
    expect(await store.runs.findBatch('r1', 'k1')).toEqual({ applied: 1 });
    expect((await store.runs.openScopes('doc1')).map((open) => open.runId)).toEqual(['r1']);
    expect(await store.runs.expiredClaims(4999)).toEqual([]);
    expect((await store.runs.expiredClaims(5000)).map((run) => run.id)).toEqual(['r1']);
    expect(await store.runs.requeueRun('r1', 4999)).toBe(false);
    expect(await store.runs.requeueRun('r1', 5000)).toBe(true);
    const run = await store.runs.getRun('r1');
    expect(run).toMatchObject({ state: 'queued', claimedBy: null, leaseExpiresAt: null, changes: [] });
    expect(run?.items.map((item) => item.outcome)).toEqual(['pending', 'pending', 'pending']);
    expect(await store.runs.findBatch('r1', 'k1')).toBeUndefined();
    expect(await store.runs.loadScope('r1')).toBeNull();
    expect(await store.runs.requeueRun('r1', 6000)).toBe(false);
  });

  it('records batches only for the agent holding the claim, appending changes in order', async () => {
    expect(await store.runs.recordBatch('r1', 'bot', 2000, batch('k0'))).toBe(false);
    await store.runs.claimRun('r1', bot, 2000, 5000);
    expect(await store.runs.recordBatch('r1', 'other', 2500, batch('k1'))).toBe(false);
    await store.runs.recordBatch('r1', 'bot', 2500, batch('k1'));
    await store.runs.recordBatch('r1', 'bot', 2600, batch('k2', 'i2'));
    const run = await store.runs.getRun('r1');
    expect(run?.changes.map((change) => change.instructionId)).toEqual(['i1', 'i2']);
    expect(run?.items.map((item) => item.outcome)).toEqual(['changed', 'changed', 'pending']);
    expect(await store.runs.loadScope('r1')).toEqual(scope);
    await expect(store.runs.recordBatch('r1', 'bot', 2700, batch('k1'))).rejects.toThrow();
  });

  it('completes with changed, refused and unchanged items', async () => {
    await store.runs.claimRun('r1', bot, 2000, 5000);
    await store.runs.recordBatch('r1', 'bot', 2500, batch('k1'));
    const completion = { summary: 'ok', refusals: new Map([['i1', 'a note'], ['i3', 'cannot sing']]) };
    expect(await store.runs.completeRun('r1', 'other', 3000, completion)).toBe(false);
    expect(await store.runs.completeRun('r1', 'bot', 3000, completion)).toBe(true);
    const run = await store.runs.getRun('r1');
    expect(run).toMatchObject({ state: 'review', summary: 'ok', leaseExpiresAt: null, claimedBy: bot });
    expect(run?.items.map(({ outcome, reason }) => [outcome, reason])).toEqual([
      ['changed', 'a note'],
      ['unchanged', null],
      ['refused', 'cannot sing'],
    ]);
    expect((await store.runs.openScopes('doc1')).map((open) => open.runId)).toEqual(['r1']);
  });

  it('[RUN3] fails a claimed run, dropping its work and keeping why', async () => {
    await store.runs.claimRun('r1', bot, 2000, 5000);
    await store.runs.recordBatch('r1', 'bot', 2500, batch('k1'));
    expect(await store.runs.failRun('r1', 'bot', 3000, 'broke')).toBe(true);
    expect(await store.runs.getRun('r1')).toMatchObject({ state: 'failed', error: 'broke', changes: [] });
    expect(await store.runs.loadScope('r1')).toBeNull();
    expect(await store.runs.outstandingRun('doc1')).toBeNull();
  });

  it('[RUN3] [REV8] decides a run in review once, keeping an accepted run’s scope for a revert', async () => {
    await store.runs.claimRun('r1', bot, 2000, 5000);
    await store.runs.recordBatch('r1', 'bot', 2500, batch('k1'));
    expect(await store.runs.decideRun('r1', 'accepted', 3000)).toBe(false);
    await store.runs.completeRun('r1', 'bot', 3000, { summary: null, refusals: new Map() });
    // On PostgreSQL concurrent calls run on connections of their own, in no set order: one wins.
    const decisions = await Promise.all([store.runs.decideRun('r1', 'accepted', 4000), store.runs.decideRun('r1', 'accepted', 4000)]);
    expect(decisions.filter(Boolean)).toHaveLength(1);
    expect(await store.runs.decideRun('r1', 'discarded', 4000)).toBe(false);
    expect(await store.runs.getRun('r1')).toMatchObject({ state: 'accepted', changes: [expect.objectContaining({ after: 'A' })] });
    expect((await store.runs.openScopes('doc1')).map((open) => open.runId)).toEqual(['r1']);
    const by = { id: 'ed', name: 'Ed' };
    expect((await Promise.all([store.runs.revertRun('r1', 5000, by, []), store.runs.revertRun('r1', 5000, by, [])])).filter(Boolean)).toHaveLength(1);
    expect(await store.runs.getRun('r1')).toMatchObject({ state: 'accepted', reverted: { at: 5000, by, notReverted: [] } });
    expect(await store.runs.openScopes('doc1')).toEqual([]);
  });

  it('[REV8] keeps the scopes of only the last accepted runs of a document', async () => {
    const accepted: string[] = [];
    for (let n = 0; n < revertibleRuns + 2; n++) {
      const id = n === 0 ? 'r1' : `r${n + 1}`;
      if (n > 0) {
        const items = [{ instructionId: 'i1', blockId: 'b1', instruction: 'uppercase', quote: 'a' }];
        await store.runs.createRun({ id, docId: 'doc1', createdBy: { id: 'ed', name: 'Ed' }, createdAt: 1000 + n, contextMarkdown: 'text', items });
      }
      await store.runs.claimRun(id, bot, 2000, 5000);
      await store.runs.recordBatch(id, 'bot', 2500, batch(`k${n}`));
      await store.runs.completeRun(id, 'bot', 3000, { summary: null, refusals: new Map() });
      expect(await store.runs.decideRun(id, 'accepted', 4000 + n)).toBe(true);
      accepted.push(id);
    }
    const kept = (await store.runs.openScopes('doc1')).map((open) => open.runId).sort();
    expect(kept).toEqual(accepted.slice(-revertibleRuns).sort());
    expect(await store.runs.loadScope('r1')).toBeNull();
  });

  it('[REV9] reopens a discarded run only while the document has no other outstanding run', async () => {
    await store.runs.claimRun('r1', bot, 2000, 5000);
    await store.runs.completeRun('r1', 'bot', 3000, { summary: null, refusals: new Map() });
    expect(await store.runs.reopenRun('r1', 3500)).toBe(false);
    await store.runs.decideRun('r1', 'discarded', 4000, { id: 'ed', name: 'Ed' });
    await store.runs.createRun({ id: 'r2', docId: 'doc1', createdBy: { id: 'ed', name: 'Ed' }, createdAt: 4500, contextMarkdown: 'text', items: [] });
    expect(await store.runs.reopenRun('r1', 5000)).toBe(false);
    expect((await store.runs.getRun('r1'))?.state).toBe('discarded');
  });

  it('keeps who decided a run', async () => {
    await store.runs.claimRun('r1', bot, 2000, 5000);
    await store.runs.completeRun('r1', 'bot', 3000, { summary: null, refusals: new Map() });
    expect(await store.runs.decideRun('r1', 'discarded', 4000, { id: 'ed', name: 'Ed' })).toBe(true);
    expect((await store.runs.getRun('r1'))?.decidedBy).toEqual({ id: 'ed', name: 'Ed' });
  });

  it('[MODEL8] keeps the activity only of the agent holding the claim, summing its usage', async () => {
    await store.runs.claimRun('r1', bot, 2000, 5000);
    const usage = { inputTokens: 10, outputTokens: 2, cachedInputTokens: 4 };
    expect(await store.runs.recordActivity('r1', 'someone-else', 2100, { line: 'forged' })).toBe(false);
    expect(await store.runs.recordActivity('r1', 'bot', 2100, { model: 'm1', line: 'reading the document', usage })).toBe(true);
    expect(await store.runs.recordActivity('r1', 'bot', 2200, { line: 'changing block 1 for instruction 1', usage })).toBe(true);
    expect(await store.runs.recordActivity('r1', 'bot', 6000, { line: 'after the lease' })).toBe(false);
    expect((await store.runs.getRun('r1'))?.activity).toEqual({
      model: 'm1',
      lines: [
        { at: 2100, text: 'reading the document' },
        { at: 2200, text: 'changing block 1 for instruction 1' },
      ],
      usage: { inputTokens: 20, outputTokens: 4, cachedInputTokens: 8 },
    });
  });

  it('[PAGE7] keeps page changes of a run', async () => {
    await store.runs.claimRun('r1', bot, 2000, 5000);
    const page = { ...batch('k2'), changes: [{ op: 'set_text' as const, blockId: 'e1', instructionId: 'i1', before: '<h1>a</h1>', after: '<h1>b</h1>' }] };
    expect(await store.runs.recordBatch('r1', 'bot', 2600, page)).toBe(true);
    expect((await store.runs.getRun('r1'))?.changes.map((change) => change.op)).toEqual(['set_text']);
  });
});

describe('the run tables of an earlier SQLite version', () => {
  let dataDir: string;
  let store: Store;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tandem-lifecycle-'));
    store = openSqliteStore(dataDir);
    await seed(store);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('brings the tables of an earlier version up to date, keeping their rows', async () => {
    await store.close();
    const db = new Database(join(dataDir, 'tandem.sqlite'));
    db.exec(`
      DROP TABLE run_scopes;
      ALTER TABLE run_items RENAME TO run_items_new;
      CREATE TABLE run_items (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, position INTEGER NOT NULL,
        instruction_id TEXT NOT NULL, block_id TEXT NOT NULL, instruction_text TEXT NOT NULL, quote TEXT NOT NULL,
        outcome TEXT NOT NULL DEFAULT 'pending' CHECK (outcome IN ('pending', 'changed', 'refused')), reason TEXT,
        PRIMARY KEY (run_id, position));
      INSERT INTO run_items SELECT run_id, position, instruction_id, block_id, instruction_text, quote, outcome, reason FROM run_items_new;
      DROP TABLE run_items_new;
      ALTER TABLE runs DROP COLUMN claimed_by_name;
      ALTER TABLE runs DROP COLUMN decided_by;
      ALTER TABLE runs DROP COLUMN decided_by_name;
    `);
    db.close();
    store = openSqliteStore(dataDir);
    expect((await store.runs.getRun('r1'))?.items).toHaveLength(3);
    await store.runs.claimRun('r1', bot, 2000, 5000);
    await store.runs.completeRun('r1', 'bot', 3000, { summary: null, refusals: new Map() });
    expect((await store.runs.getRun('r1'))?.items.map((item) => item.outcome)).toEqual(['unchanged', 'unchanged', 'unchanged']);
    expect((await store.runs.getRun('r1'))?.claimedBy).toEqual(bot);
    expect((await store.runs.getRun('r1'))?.items.map((item) => [item.currentText, item.drifted])).toEqual([
      [null, false],
      [null, false],
      [null, false],
    ]);
  });

  it('[PAGE7] upgrades a run_changes table made before pages, keeping its rows and taking page changes', async () => {
    await store.runs.claimRun('r1', bot, 2000, 5000);
    await store.runs.recordBatch('r1', 'bot', 2500, batch('k1'));
    await store.close();
    const db = new Database(join(dataDir, 'tandem.sqlite'));
    db.exec(`
      ALTER TABLE run_changes RENAME TO run_changes_new;
      CREATE TABLE run_changes (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, position INTEGER NOT NULL, block_id TEXT NOT NULL,
        instruction_id TEXT NOT NULL, op TEXT NOT NULL CHECK (op IN ('replace_block', 'insert_after', 'delete_block')),
        before TEXT, after TEXT, note TEXT, PRIMARY KEY (run_id, position));
      INSERT INTO run_changes SELECT run_id, position, block_id, instruction_id, op, before, after, note FROM run_changes_new;
      DROP TABLE run_changes_new;
    `);
    db.close();
    store = openSqliteStore(dataDir);
    const page = { ...batch('k2'), changes: [{ op: 'set_text' as const, blockId: 'e1', instructionId: 'i1', before: '<h1>a</h1>', after: '<h1>b</h1>' }] };
    expect(await store.runs.recordBatch('r1', 'bot', 2600, page)).toBe(true);
    expect((await store.runs.getRun('r1'))?.changes.map((change) => change.op)).toEqual(['replace_block', 'set_text']);
  });
});
