import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../server/store/store.ts';
import { storeBackends, type TestStore } from '../helpers/store-backends.ts';

/*
 * Review item by item in the run store (PROTOCOL.md REV12), through the real store of each
 * backend: one item's decision is one conditional step, the run leaves review once every item
 * with changes is decided, and decisions hold across a reopen.
 */

let opened: TestStore;
let store: Store;
const ed = { id: 'ed', name: 'Ed' };
const kim = { id: 'kim', name: 'Kim' };

describe.each(storeBackends)('review item by item in the $name run store', (backend) => {
  beforeAll(() => backend.setUp());
  afterAll(() => backend.tearDown());
  beforeEach(async () => {
    opened = await backend.open();
    store = opened.store;
    await store.createDoc({ id: 'doc1', title: 'doc1', kind: 'text', createdAt: 1, updatedAt: 1 }, new Map());
    const items = ['i1', 'i2', 'i3'].map((id, index) => ({ instructionId: id, blockId: `b${index + 1}`, instruction: 'uppercase', quote: 'a' }));
    await store.runs.createRun({ id: 'r1', docId: 'doc1', createdBy: ed, createdAt: 1000, contextMarkdown: 'text', items });
    // i1 and i2 have changes, i3 none: the run is in review.
    await opened.exec(`UPDATE runs SET state = 'review' WHERE id = 'r1'`);
    await opened.exec(`UPDATE run_items SET outcome = 'changed' WHERE run_id = 'r1' AND instruction_id IN ('i1', 'i2')`);
    await opened.exec(`UPDATE run_items SET outcome = 'unchanged' WHERE run_id = 'r1' AND instruction_id = 'i3'`);
  });
  afterEach(() => opened.dispose());

  const decisions = async () => (await store.runs.getRun('r1'))!.items.map((item) => item.decision);

  it('[REV12] keeps the run in review until every item with changes is decided, then accepts it when one was accepted', async () => {
    expect(await decisions()).toEqual([null, null, null]);
    expect(await store.runs.decideItem('r1', 'i1', 'accepted', 2000, ed)).toBe('review');
    expect(await decisions()).toEqual(['accepted', null, null]);
    expect((await store.runs.getRun('r1'))!.state).toBe('review');
    expect(await store.runs.decideItem('r1', 'i2', 'discarded', 3000, kim)).toBe('accepted');
    const run = (await store.runs.getRun('r1'))!;
    expect(run.state).toBe('accepted');
    expect(run.decidedBy).toEqual(kim);
    expect(run.items.map((item) => item.decision)).toEqual(['accepted', 'discarded', 'accepted']);
  });

  it('[REV12] discards the run when every item was discarded, and Undo discard clears the decisions', async () => {
    expect(await store.runs.decideItem('r1', 'i2', 'discarded', 2000, ed)).toBe('review');
    expect(await store.runs.decideItem('r1', 'i1', 'discarded', 2000, ed)).toBe('discarded');
    expect(await decisions()).toEqual(['discarded', 'discarded', 'discarded']);
    expect(await store.runs.reopenRun('r1', 3000)).toBe(true);
    expect((await store.runs.getRun('r1'))!.state).toBe('review');
    expect(await decisions()).toEqual([null, null, null]);
  });

  it('[REV12] refuses an item decided already, an unknown item and a run not in review, changing nothing', async () => {
    expect(await store.runs.decideItem('r1', 'i1', 'accepted', 2000, ed)).toBe('review');
    expect(await store.runs.decideItem('r1', 'i1', 'discarded', 2000, kim)).toBe(false);
    expect(await store.runs.decideItem('r1', 'nope', 'discarded', 2000, kim)).toBe(false);
    expect(await decisions()).toEqual(['accepted', null, null]);
    await opened.exec(`UPDATE runs SET state = 'claimed' WHERE id = 'r1'`);
    expect(await store.runs.decideItem('r1', 'i2', 'accepted', 2000, kim)).toBe(false);
    expect(await decisions()).toEqual(['accepted', null, null]);
  });

  it('[REV12] lets exactly one of concurrent decisions of one item win', async () => {
    const results = await Promise.all([
      store.runs.decideItem('r1', 'i1', 'accepted', 2000, ed),
      store.runs.decideItem('r1', 'i1', 'discarded', 2000, kim),
      store.runs.decideItem('r1', 'i1', 'discarded', 2000, kim),
    ]);
    expect(results.filter((result) => result !== false)).toEqual(['review']);
    expect((await decisions())[0]).toBe(results[0] !== false ? 'accepted' : 'discarded');
  });

  it('[REV12] decides only the undecided items with Discard run, and keeps the decisions across a reopen', async () => {
    expect(await store.runs.decideItem('r1', 'i1', 'accepted', 2000, ed)).toBe('review');
    expect(await store.runs.decideRun('r1', 'discarded', 3000, ed)).toBe(true);
    store = await opened.reopen();
    const run = (await store.runs.getRun('r1'))!;
    expect(run.state).toBe('accepted');
    expect(run.items.map((item) => item.decision)).toEqual(['accepted', 'discarded', 'discarded']);
  });
});
