import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { NewRun, Store } from '../../server/store/store.ts';
import { storeBackends, type TestStore } from '../helpers/store-backends.ts';

function newRun(id: string, docId = 'doc1', createdAt = 1000): NewRun {
  return {
    id,
    docId,
    createdBy: { id: 'ed', name: 'Ed' },
    createdAt,
    contextMarkdown: '# Title\n\ntext\n',
    items: [
      { instructionId: 'i1', blockId: 'b1', instruction: 'uppercase', quote: 'text' },
      { instructionId: 'i2', blockId: 'b2', instruction: 'delete', quote: 'more' },
    ],
  };
}

describe.each(storeBackends)('the run store in $name', (backend) => {
  let opened: TestStore;
  let store: Store;

  beforeAll(() => backend.setUp());
  afterAll(() => backend.tearDown());
  beforeEach(async () => {
    opened = await backend.open();
    store = opened.store;
    for (const id of ['doc1', 'doc2']) {
      await store.createDoc({ id, title: id, kind: 'text', createdAt: 1, updatedAt: 1 }, new Map());
    }
  });
  afterEach(() => opened.dispose());

  /** Changes a run's state behind the store's back, as the next lifecycle steps will. */
  const setState = (runId: string, state: string) => opened.exec('UPDATE runs SET state = ? WHERE id = ?', [state, runId]);

  it('stores a queued run with its items pending, its author and its context', async () => {
    const created = await store.runs.createRun(newRun('r1'));
    expect(created.ok).toBe(true);
    expect(await store.runs.getRun('r1')).toEqual({
      id: 'r1',
      docId: 'doc1',
      state: 'queued',
      createdBy: { id: 'ed', name: 'Ed' },
      createdAt: 1000,
      updatedAt: 1000,
      claimedBy: null,
      leaseExpiresAt: null,
      decidedBy: null,
      reverted: null,
      summary: null,
      error: null,
      contextMarkdown: '# Title\n\ntext\n',
      activity: null,
      items: [
        { instructionId: 'i1', blockId: 'b1', instruction: 'uppercase', quote: 'text', currentText: null, drifted: false, outcome: 'pending', reason: null, decision: null, variantsWanted: 1, variants: [], chosen: null },
        { instructionId: 'i2', blockId: 'b2', instruction: 'delete', quote: 'more', currentText: null, drifted: false, outcome: 'pending', reason: null, decision: null, variantsWanted: 1, variants: [], chosen: null },
      ],
      changes: [],
    });
    expect(await store.runs.getRun('nope')).toBeNull();
  });

  it('refuses a second outstanding run of a document, but not of another document', async () => {
    await store.runs.createRun(newRun('r1'));
    expect(await store.runs.createRun(newRun('r2'))).toEqual({ ok: false, reason: 'outstanding' });
    expect((await store.runs.createRun(newRun('r3', 'doc2'))).ok).toBe(true);
    expect(await store.runs.getRun('r2')).toBeNull();
    expect((await store.runs.outstandingRun('doc1'))?.id).toBe('r1');
  });

  it.each(['claimed', 'review'])('counts a %s run as outstanding', async (state) => {
    await store.runs.createRun(newRun('r1'));
    await setState('r1', state);
    expect(await store.runs.createRun(newRun('r2'))).toEqual({ ok: false, reason: 'outstanding' });
  });

  it.each(['accepted', 'discarded', 'failed'])('lets the next run start once the last one is %s', async (state) => {
    await store.runs.createRun(newRun('r1', 'doc1', 1000));
    await setState('r1', state);
    expect(await store.runs.outstandingRun('doc1')).toBeNull();
    expect((await store.runs.createRun(newRun('r2', 'doc1', 2000))).ok).toBe(true);
    expect((await store.runs.listRuns('doc1')).map((run) => run.id)).toEqual(['r2', 'r1']);
  });

  it('[RUN4] reads the runs the mirror holds: the outstanding one, the newest finished ones and the newest decided ones, newest first', async () => {
    const finished = ['accepted', 'discarded', 'failed', 'cancelled'];
    for (let i = 0; i < 8; i++) {
      await store.runs.createRun(newRun(`r${i}`, 'doc1', 1000 + i));
      await setState(`r${i}`, finished[i % finished.length]);
    }
    // Two runs made in the same millisecond: the id decides, as in `listRuns`.
    await store.runs.createRun(newRun('r8b', 'doc1', 1007));
    await setState('r8b', 'accepted');
    await store.runs.createRun(newRun('other', 'doc2', 5000));
    await setState('other', 'accepted');
    await store.runs.createRun(newRun('open', 'doc1', 500));
    const ids = async (finished: number, decided = 0) => (await store.runs.mirroredRuns('doc1', { finished, decided })).map((run) => run.id);
    // r7 is cancelled, r6 failed, r5 discarded, r4 accepted.
    expect(await ids(3)).toEqual(['r8b', 'r7', 'r6', 'open']);
    expect(await ids(0)).toEqual(['open']);
    expect(await ids(100)).toEqual((await store.runs.listRuns('doc1')).map((run) => run.id));
    // The newest decided runs come too, however many finished runs came after them, each once.
    expect(await ids(1, 3)).toEqual(['r8b', 'r5', 'r4', 'open']);
    expect(await ids(0, 2)).toEqual(['r8b', 'r5', 'open']);
    expect((await store.runs.mirroredRuns('doc1', { finished: 1, decided: 0 }))[1]).toEqual(await store.runs.getRun('open'));
    await setState('open', 'cancelled');
    expect(await ids(2)).toEqual(['r8b', 'r7']);
    expect(await store.runs.mirroredRuns('nodoc', { finished: 20, decided: 5 })).toEqual([]);
  });

  it('lets exactly one of concurrent creations for a document succeed', async () => {
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((id) => store.runs.createRun(newRun(id))));
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(await store.runs.listRuns('doc1')).toHaveLength(1);
  });

  it('rejects a run of an unknown document and a duplicate run id with an error', async () => {
    await expect(store.runs.createRun(newRun('r1', 'nodoc'))).rejects.toThrow();
    await store.runs.createRun(newRun('r1'));
    await setState('r1', 'accepted');
    await expect(store.runs.createRun(newRun('r1'))).rejects.toThrow();
  });

  it('refuses an unknown state in the database itself', async () => {
    await store.runs.createRun(newRun('r1'));
    await expect(setState('r1', 'lost')).rejects.toThrow(/check constraint/i);
  });

  it('keeps runs, items and the annotation index across a reopen', async () => {
    await store.runs.createRun(newRun('r1'));
    await store.annotationDocs.add('doc1', ['n1', 'n2']);
    await store.annotationDocs.add('doc2', ['n2', 'n3']);
    store = await opened.reopen();
    expect((await store.runs.getRun('r1'))?.items).toHaveLength(2);
    expect(await Promise.all(['n1', 'n2', 'n3', 'n4'].map((id) => store.annotationDocs.docOf(id)))).toEqual([
      'doc1',
      'doc1',
      'doc2',
      null,
    ]);
  });
});
