import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runStates } from '../../shared/protocol/run-record.ts';
import { canTake, runTransitionNames, runTransitions, type RunTransition } from '../../shared/protocol/run-states.ts';
import { openSqliteStore } from '../../server/store/sqlite-store.ts';
import type { Store } from '../../server/store/store.ts';

/*
 * The run store's conditional steps follow the transition table (shared/protocol/run-states.ts): each
 * takes a run out of exactly the states the table lists and refuses every other, through the
 * real SQLite store. The run is put in each state by hand, with everything else a step checks
 * (the claiming agent, an expired lease, a stored scope) in place, so only the state decides.
 */

let dataDir: string;
let store: Store;
let db: Database.Database;
const bot = { id: 'bot', name: 'Bot' };
const ed = { id: 'ed', name: 'Ed' };

const take: Record<Exclude<RunTransition, 'send'>, () => Promise<boolean>> = {
  claim: () => store.runs.claimRun('r1', bot, 2000, 9000),
  leaseExpired: () => store.runs.requeueRun('r1', 2000),
  complete: () => store.runs.completeRun('r1', 'bot', 2000, { summary: null, refusals: new Map() }),
  fail: () => store.runs.failRun('r1', 'bot', 2000, 'broken'),
  accept: () => store.runs.decideRun('r1', 'accepted', 2000, ed),
  discard: () => store.runs.decideRun('r1', 'discarded', 2000, ed),
  undoDiscard: () => store.runs.reopenRun('r1', 2000),
  revert: () => store.runs.revertRun('r1', 2000, ed, []),
};

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tandem-transitions-'));
  store = openSqliteStore(dataDir);
  await store.createDoc({ id: 'doc1', title: 'doc1', kind: 'text', createdAt: 1, updatedAt: 1 }, new Map());
  const items = [{ instructionId: 'i1', blockId: 'b1', instruction: 'uppercase', quote: 'a' }];
  await store.runs.createRun({ id: 'r1', docId: 'doc1', createdBy: ed, createdAt: 1000, contextMarkdown: 'text', items });
  db = new Database(join(dataDir, 'tandem.sqlite'));
});
afterEach(async () => {
  db.close();
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Puts run r1 in `state`, claimed by the bot with a lease that ran out at 1500 and a stored scope. */
function putIn(state: string): void {
  db.prepare(
    `UPDATE runs SET state = ?, claimed_by = 'bot', claimed_by_name = 'Bot', lease_expires_at = 1500,
       reverted_at = NULL, decided_by = NULL WHERE id = 'r1'`,
  ).run(state);
  db.prepare(`INSERT OR REPLACE INTO run_scopes (run_id, insertions, deletions) VALUES ('r1', x'00', x'00')`).run();
}

describe('the run store and the transition table', () => {
  it('[RUN3] takes each transition from exactly its from-states, refusing every other and changing nothing', async () => {
    const taken: string[] = [];
    for (const name of runTransitionNames) {
      if (name === 'send') continue;
      for (const state of runStates) {
        putIn(state);
        const won = await take[name]();
        expect(won, `${name} from ${state}`).toBe(canTake(name, state));
        const after = (await store.runs.getRun('r1'))!.state;
        expect(after, `${name} from ${state}`).toBe(won ? runTransitions[name].to : state);
        if (won) taken.push(`${name}:${state}`);
      }
    }
    // The positive control: every transition of the table was taken once.
    expect(taken).toEqual(runTransitionNames.filter((name) => name !== 'send').map((name) => `${name}:${runTransitions[name].from[0]}`));
  });
});
