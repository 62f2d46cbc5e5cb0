import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BoardAside } from '../../server/store/aside-board.ts';
import type { Store } from '../../server/store/store.ts';
import type { AsideRecord } from '../../shared/wire/asides.ts';
import { asideRecord } from '../helpers/asides.ts';
import { storeBackends, type TestStore } from '../helpers/store-backends.ts';

/*
 * The asides board (server/store/aside-board.ts) behaves alike in memory (SQLite's store) and in
 * PostgreSQL: the AsideService relies on the same limits, hand-outs and changes from both.
 */

let sequence = 0;
function aside(runId: string, kind: AsideRecord['kind'] = 'question', mirrored = true, askedBy = { id: 'ed', name: 'Ed' }): BoardAside {
  sequence += 1;
  const record = asideRecord({ asideId: `aside-${sequence}`, runId, kind, text: `Text ${sequence}`, route: kind === 'steer' ? 'agent' : null, askedBy });
  return { docId: 'doc1', mirrored, record };
}

const limits = { total: 5, openQuestions: 2 };

describe.each(storeBackends)('the asides board in $name', (backend) => {
  let opened: TestStore;
  let store: Store;

  beforeAll(() => backend.setUp());
  afterAll(() => backend.tearDown());
  beforeEach(async () => {
    opened = await backend.open();
    store = opened.store;
    for (const [runId, docId] of [['r1', 'doc1'], ['r2', 'doc2']]) {
      await store.createDoc({ id: docId, title: docId, kind: 'text', createdAt: 1, updatedAt: 1 }, new Map());
      const created = await store.runs.createRun({ id: runId, docId, createdBy: { id: 'ed', name: 'Ed' }, createdAt: 1, contextMarkdown: '', items: [] });
      expect(created.ok).toBe(true);
    }
  });
  afterEach(() => opened.dispose());

  it('hands out each aside of a run once, oldest first, and only that run’s', async () => {
    const first = aside('r1');
    const second = aside('r1', 'steer', false);
    const other = aside('r2', 'steer');
    for (const added of [first, second, other]) expect(await store.asides.add(added, limits)).toBe('added');
    expect(await store.asides.takeUndelivered('r1')).toEqual([first, second]);
    expect(await store.asides.takeUndelivered('r1')).toEqual([]);
    const third = aside('r1', 'steer');
    await store.asides.add(third, limits);
    expect(await store.asides.takeUndelivered('r1')).toEqual([third]);
    expect(await store.asides.takeUndelivered('r2')).toEqual([other]);
  });

  it('refuses an aside over the person’s total on the run, and a question over their open questions', async () => {
    expect(await store.asides.add(aside('r1'), limits)).toBe('added');
    expect(await store.asides.add(aside('r1'), limits)).toBe('added');
    expect(await store.asides.add(aside('r1'), limits)).toBe('too-many-open');
    // A steer is no open question; another run has limits of its own.
    expect(await store.asides.add(aside('r1', 'steer'), limits)).toBe('added');
    expect(await store.asides.add(aside('r2'), limits)).toBe('added');
    expect(await store.asides.add(aside('r1', 'steer'), limits)).toBe('added');
    expect(await store.asides.add(aside('r1', 'steer'), limits)).toBe('added');
    expect(await store.asides.add(aside('r1', 'steer'), limits)).toBe('too-many');
  });

  it('[ASIDE3] counts each person’s asides apart: one who used up their share blocks nobody else', async () => {
    const cleo = { id: 'cleo', name: 'Cleo' };
    expect(await store.asides.add(aside('r1', 'question', true, cleo), limits)).toBe('added');
    expect(await store.asides.add(aside('r1', 'question', true, cleo), limits)).toBe('added');
    expect(await store.asides.add(aside('r1', 'question', true, cleo), limits)).toBe('too-many-open');
    expect(await store.asides.add(aside('r1'), limits)).toBe('added');
    expect(await store.asides.add(aside('r1'), limits)).toBe('added');
    for (let i = 0; i < 3; i += 1) expect(await store.asides.add(aside('r1', 'steer', true, cleo), limits)).toBe('added');
    expect(await store.asides.add(aside('r1', 'steer', true, cleo), limits)).toBe('too-many');
    // Cleo holds 5 and the run 7, over the limit of one person; Ed still has room.
    expect(await store.asides.add(aside('r1', 'steer'), limits)).toBe('added');
  });

  it('frees an open question’s place once its answer is done', async () => {
    const asked = [aside('r1'), aside('r1')];
    for (const question of asked) await store.asides.add(question, limits);
    await store.asides.add(aside('r1', 'steer'), limits);
    expect(await store.asides.openQuestions('r1')).toEqual(asked);
    const done = await store.asides.update(asked[0].record.asideId, (record) => ({ ...record, answer: 'Yes.', route: 'side', done: true }));
    expect(done).toEqual({ aside: { ...asked[0], record: { ...asked[0].record, answer: 'Yes.', route: 'side', done: true } }, changed: true });
    expect(await store.asides.openQuestions('r1')).toEqual([asked[1]]);
    expect(await store.asides.add(aside('r1'), limits)).toBe('added');
  });

  it('adds the aside a change is followed by in the same step, and none when nothing changes', async () => {
    const told: string[] = [];
    const question = aside('r1');
    for (let open = 0; open < limits.total; open++) await store.asides.add(open === 0 ? question : aside('r1', 'steer'), limits);
    const steer = aside('r1', 'steer', false);
    const stop = store.asides.onChanged((_runId, asideId) => told.push(asideId));
    expect(await store.asides.update(question.record.asideId, () => null, () => steer)).toEqual({ aside: question, changed: false });
    expect(told).toEqual([]);
    // Whatever the run's limits: it already holds as many asides as it may.
    const ended = await store.asides.update(question.record.asideId, (record) => ({ ...record, done: true, route: 'agent' }), () => steer);
    expect(ended?.changed).toBe(true);
    expect(told).toEqual([question.record.asideId, steer.record.asideId]);
    stop();
    expect((await store.asides.takeUndelivered('r1')).map((taken) => taken.record.asideId)).toContain(steer.record.asideId);
    expect(await store.asides.get(steer.record.asideId)).toEqual(steer);
  });

  it('does not keep the asides of a run that is not claimed past a restart', async () => {
    const asked = aside('r1');
    await store.asides.add(asked, limits);
    store = await opened.reopen();
    expect(await store.asides.get(asked.record.asideId)).toBeNull();
    expect(await store.asides.takeUndelivered('r1')).toEqual([]);
  });

  it('changes an aside only as `change` says, tells the listeners, and forgets a run’s asides', async () => {
    const told: string[] = [];
    const stop = store.asides.onChanged((runId, asideId) => told.push(`${runId} ${asideId}`));
    const question = aside('r1');
    await store.asides.add(question, limits);
    const { asideId } = question.record;
    expect(await store.asides.update(asideId, () => null)).toEqual({ aside: question, changed: false });
    await store.asides.update(asideId, (record) => ({ ...record, answer: 'Partly' }));
    expect((await store.asides.get(asideId))?.record.answer).toBe('Partly');
    expect(told).toEqual([`r1 ${asideId}`, `r1 ${asideId}`]);
    stop();

    await store.asides.dropRun('r1');
    expect(await store.asides.get(asideId)).toBeNull();
    expect(await store.asides.update(asideId, (record) => record)).toBeNull();
    expect(await store.asides.takeUndelivered('r1')).toEqual([]);
  });
});
