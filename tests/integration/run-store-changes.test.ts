import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../server/store/store.ts';
import { storeBackends, type TestStore } from '../helpers/store-backends.ts';

/*
 * The run store's "run changed" event (RunStore.onRunChanged, server/store/run-changes.ts): every
 * committed write of a run tells the listeners which run of which document changed, before the
 * write resolves; a write the store refuses tells no one.
 */

let opened: TestStore;
let store: Store;
const bot = { id: 'bot', name: 'Bot' };
const ed = { id: 'ed', name: 'Ed' };
const scope = { insertions: new Uint8Array([1]), deletions: new Uint8Array([2]) };
const items = [{ instructionId: 'i1', blockId: 'b1', instruction: 'uppercase', quote: 'a' }];

describe.each(storeBackends)('the change event of the run store in $name', (backend) => {
  beforeAll(() => backend.setUp());
  afterAll(() => backend.tearDown());
  beforeEach(async () => {
    opened = await backend.open();
    store = opened.store;
    await store.createDoc({ id: 'doc1', title: 'doc1', kind: 'text', createdAt: 1, updatedAt: 1 }, new Map());
  });
  afterEach(() => opened.dispose());

  it('[RUN4] tells listeners of every committed write with the run and its document, the write already stored', async () => {
    const heard: string[] = [];
    store.runs.onRunChanged(async (runId, docId) => {
      heard.push(`${runId}@${docId}:${(await store.runs.getRun(runId))?.state}`);
    });
    const runs = store.runs;
    await runs.createRun({ id: 'r1', docId: 'doc1', createdBy: ed, createdAt: 1000, contextMarkdown: 'a', items });
    await runs.claimRun('r1', bot, 2000, 5000);
    await runs.renewLease('r1', 'bot', 2100, 6000);
    const change = { op: 'replace_block' as const, blockId: 'b1', instructionId: 'i1', before: 'a', after: 'A' };
    await runs.recordBatch('r1', 'bot', 2200, { idempotencyKey: 'k1', response: {}, changes: [change], scope });
    await runs.completeRun('r1', 'bot', 2300, { summary: null, refusals: new Map() });
    await runs.decideRun('r1', 'accepted', 2400, ed);
    await runs.storeScope('r1', scope);
    await runs.revertRun('r1', 2500, ed, []);
    expect(heard).toEqual([
      'r1@doc1:queued',
      'r1@doc1:claimed',
      'r1@doc1:claimed',
      'r1@doc1:claimed',
      'r1@doc1:review',
      'r1@doc1:accepted',
      'r1@doc1:accepted',
      'r1@doc1:accepted',
    ]);
  });

  it('tells no one of a write the store refuses', async () => {
    const heard: string[] = [];
    await store.runs.createRun({ id: 'r1', docId: 'doc1', createdBy: ed, createdAt: 1000, contextMarkdown: 'a', items });
    store.runs.onRunChanged((runId) => void heard.push(runId));
    const refused = await Promise.all([
      store.runs.completeRun('r1', 'bot', 2000, { summary: null, refusals: new Map() }),
      store.runs.decideRun('r1', 'discarded', 2000, ed),
      store.runs.reopenRun('r1', 2000),
      store.runs.requeueRun('r1', 2000),
      store.runs.storeScope('r1', scope),
      store.runs.createRun({ id: 'r2', docId: 'doc1', createdBy: ed, createdAt: 1500, contextMarkdown: 'a', items }).then((result) => result.ok),
    ]);
    expect(refused).toEqual([false, false, false, false, false, false]);
    // The positive control: a write that commits is heard.
    expect(await store.runs.claimRun('r1', bot, 2000, 5000)).toBe(true);
    expect(heard).toEqual(['r1']);
  });

  it('resolves a write only once its listeners settled, and not after they unsubscribed', async () => {
    await store.runs.createRun({ id: 'r1', docId: 'doc1', createdBy: ed, createdAt: 1000, contextMarkdown: 'a', items });
    let entered!: () => void;
    const inListener = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let firstCalls = 0;
    const unsubscribe = store.runs.onRunChanged(() => {
      firstCalls++;
      entered();
      return released;
    });
    let resolved = false;
    const claim = store.runs.claimRun('r1', bot, 2000, 5000).then((won) => {
      resolved = true;
      return won;
    });
    await inListener;
    await new Promise((next) => setImmediate(next));
    expect(resolved).toBe(false);
    release();
    expect(await claim).toBe(true);
    unsubscribe();
    let heard = 0;
    store.runs.onRunChanged(() => void heard++);
    await store.runs.renewLease('r1', 'bot', 2100, 6000);
    expect(heard).toBe(1);
    expect(firstCalls).toBe(1);
  });
});
