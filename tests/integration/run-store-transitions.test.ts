import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runStates } from '../../shared/protocol/run-record.ts';
import { canTake, runTransitionNames, runTransitions, type RunTransition } from '../../shared/protocol/run-states.ts';
import type { Store } from '../../server/store/store.ts';
import { storeBackends, type TestStore } from '../helpers/store-backends.ts';

/*
 * The run store's conditional steps follow the transition table (shared/protocol/run-states.ts): each
 * takes a run out of exactly the states the table lists and refuses every other, through the
 * real store of each backend. The run is put in each state by hand, with everything else a step checks
 * (the claiming agent, an expired lease, a stored scope) in place, so only the state decides.
 */

let opened: TestStore;
let store: Store;
const bot = { id: 'bot', name: 'Bot' };
const ed = { id: 'ed', name: 'Ed' };

const take: Record<Exclude<RunTransition, 'send'>, () => Promise<boolean>> = {
  claim: () => store.runs.claimRun('r1', bot, 2000, 9000),
  leaseExpired: () => store.runs.requeueRun('r1', 2000),
  complete: () => store.runs.completeRun('r1', 'bot', 2000, { summary: null, refusals: new Map() }),
  fail: () => store.runs.failRun('r1', 'bot', 2000, 'broken'),
  cancel: () => store.runs.cancelRun('r1', 2000, ed),
  accept: () => store.runs.decideRun('r1', 'accepted', 2000, ed),
  discard: () => store.runs.decideRun('r1', 'discarded', 2000, ed),
  undoDiscard: () => store.runs.reopenRun('r1', 2000),
  revert: () => store.runs.revertRun('r1', 2000, ed, []),
  // Undo revert leaves a reverted run: the revert is put in place by hand, as the state is.
  undoRevert: async () => {
    await opened.exec(`UPDATE runs SET reverted_at = 1900, reverted_by = 'ed', reverted_by_name = 'Ed', not_reverted = '[]' WHERE id = 'r1'`);
    return store.runs.unrevertRun('r1', 2000);
  },
};

describe.each(storeBackends)('the run store in $name and the transition table', (backend) => {
  beforeAll(() => backend.setUp());
  afterAll(() => backend.tearDown());
  beforeEach(async () => {
    opened = await backend.open();
    store = opened.store;
    await store.createDoc({ id: 'doc1', title: 'doc1', kind: 'text', createdAt: 1, updatedAt: 1 }, new Map());
    const items = [{ instructionId: 'i1', blockId: 'b1', instruction: 'uppercase', quote: 'a' }];
    await store.runs.createRun({ id: 'r1', docId: 'doc1', createdBy: ed, createdAt: 1000, contextMarkdown: 'text', items });
  });
  afterEach(() => opened.dispose());

  /** Puts run r1 in `state`, claimed by the bot with a lease that ran out at 1500, no item decided and a stored scope. */
  async function putIn(state: string): Promise<void> {
    await opened.exec(
      `UPDATE runs SET state = ?, claimed_by = 'bot', claimed_by_name = 'Bot', lease_expires_at = 1500,
         reverted_at = NULL, decided_by = NULL WHERE id = 'r1'`,
      [state],
    );
    await opened.exec(`UPDATE run_items SET decision = NULL WHERE run_id = 'r1'`);
    await opened.exec(`DELETE FROM run_scopes WHERE run_id = 'r1'`);
    await opened.exec(`INSERT INTO run_scopes (run_id, insertions, deletions) VALUES ('r1', ?, ?)`, [Buffer.from([0]), Buffer.from([0])]);
  }

  it('[RUN3] takes each transition from exactly its from-states, refusing every other and changing nothing', async () => {
    const taken: string[] = [];
    for (const name of runTransitionNames) {
      if (name === 'send') continue;
      for (const state of runStates) {
        await putIn(state);
        const won = await take[name]();
        expect(won, `${name} from ${state}`).toBe(canTake(name, state));
        const after = (await store.runs.getRun('r1'))!.state;
        expect(after, `${name} from ${state}`).toBe(won ? runTransitions[name].to : state);
        if (won) taken.push(`${name}:${state}`);
      }
    }
    // The positive control: every transition of the table was taken from each of its from-states.
    expect(taken).toEqual(runTransitionNames.filter((name) => name !== 'send').flatMap((name) => runTransitions[name].from.map((state) => `${name}:${state}`)));
  });
});
