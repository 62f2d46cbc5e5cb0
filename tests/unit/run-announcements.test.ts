import { describe, expect, it } from 'vitest';
import type { RunRecord, RunState } from '../../shared/protocol/run-record.ts';
import { runAnnouncements, type RunStatus } from '../../client/run-announcer.ts';

/* What the app's live region says about runs (README, "Using it"). */

function run(runId: string, state: RunState, extra: Partial<RunRecord> = {}): RunRecord {
  return {
    runId,
    docId: 'doc1',
    state,
    items: [],
    changes: [],
    createdAt: '2025-01-02T03:04:05.000Z',
    createdBy: { id: 'ed', name: 'Ed' },
    updatedAt: '2025-01-02T03:04:05.000Z',
    summary: null,
    error: null,
    claimedBy: { id: 'bot', name: 'Reference agent' },
    lease: null,
    decidedBy: null,
    reverted: null,
    agent: null,
    activity: [],
    usage: null,
    ...extra,
  };
}

const item = { instructionId: 'i1', blockId: 'b1', instruction: 'x', quote: 'q', currentText: 'q', drifted: false, outcome: 'changed' as const, reason: null, decision: null, variantsWanted: 1, variants: [], chosen: null };

describe('runAnnouncements', () => {
  it('tells that a known run arrived for review, with the agent and the number of instructions', () => {
    const known = new Map<string, RunState>([['r1', 'claimed']]);
    expect(runAnnouncements(known, [run('r1', 'review', { items: [item, item] })], 'me')).toEqual([
      'Run ready for review: Reference agent answered 2 instructions',
    ]);
  });

  it('tells who accepted or discarded a run, unless it was this person', () => {
    const known = new Map<string, RunState>([
      ['r1', 'review'],
      ['r2', 'review'],
    ]);
    const bob = { id: 'bob', name: 'Bob' };
    expect(runAnnouncements(known, [run('r1', 'accepted', { decidedBy: bob })], 'alice')).toEqual(['Run accepted by Bob']);
    expect(runAnnouncements(known, [run('r2', 'discarded', { decidedBy: bob })], 'alice')).toEqual(['Run discarded by Bob']);
    expect(runAnnouncements(known, [run('r1', 'accepted', { decidedBy: bob })], 'bob')).toEqual([]);
  });

  it('[REV8] [REV9] tells who reverted a run, unless it was this person, and that a discard was undone', () => {
    const known = new Map<string, RunStatus>([
      ['r1', 'accepted'],
      ['r2', 'discarded'],
    ]);
    const bob = { id: 'bob', name: 'Bob' };
    const reverted = { at: '2025-01-02T03:05:00.000Z', by: bob, notReverted: [] };
    expect(runAnnouncements(known, [run('r1', 'accepted', { decidedBy: bob, reverted })], 'alice')).toEqual(['Run reverted by Bob']);
    expect(runAnnouncements(known, [run('r1', 'accepted', { decidedBy: bob, reverted })], 'bob')).toEqual([]);
    expect(runAnnouncements(known, [run('r2', 'review')], 'alice')).toEqual(['Discard undone: the run is in review again']);
  });

  it('[RUN6] tells who cancelled a run, unless it was this person', () => {
    const known = new Map<string, RunState>([['r1', 'queued']]);
    const bob = { id: 'bob', name: 'Bob' };
    expect(runAnnouncements(known, [run('r1', 'cancelled', { decidedBy: bob })], 'alice')).toEqual(['Run cancelled by Bob']);
    expect(runAnnouncements(known, [run('r1', 'cancelled', { decidedBy: bob })], 'bob')).toEqual([]);
  });

  it('says nothing of runs it had not seen, nor of a state that did not change', () => {
    expect(runAnnouncements(new Map(), [run('r1', 'review'), run('r2', 'accepted')], 'me')).toEqual([]);
    expect(runAnnouncements(new Map([['r1', 'review']]), [run('r1', 'review')], 'me')).toEqual([]);
  });
});
