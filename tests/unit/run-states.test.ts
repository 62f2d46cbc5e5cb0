import { describe, expect, it } from 'vitest';
import { runStates, outstandingRunStates, type RunState } from '../../shared/protocol/run-record.ts';
import { canTake, claimedStates, runTransitionNames, runTransitions, terminalRunStates } from '../../shared/protocol/run-states.ts';

describe('the run transition table', () => {
  it('[RUN3] reaches every state from queued', () => {
    const reached = new Set<RunState>(['queued']);
    for (let grew = true; grew; ) {
      grew = false;
      for (const name of runTransitionNames) {
        const { from, to } = runTransitions[name];
        if (!reached.has(to) && from.some((state) => reached.has(state))) {
          reached.add(to);
          grew = true;
        }
      }
    }
    expect([...reached].sort()).toEqual([...runStates].sort());
  });

  it('[RUN3] creates runs queued, by send alone', () => {
    const creating = runTransitionNames.filter((name) => runTransitions[name].from.length === 0);
    expect(creating).toEqual(['send']);
    expect(runTransitions.send.to).toBe('queued');
  });

  it('[RUN3] [RUN6] ends a run accepted, failed or cancelled, and a discard can be undone', () => {
    expect([...terminalRunStates].sort()).toEqual(['accepted', 'cancelled', 'failed']);
    expect(canTake('undoDiscard', 'discarded')).toBe(true);
    expect(canTake('revert', 'accepted')).toBe(true);
    expect(runTransitions.revert.to).toBe('accepted');
  });

  it('[RUN3] lets a run leave every state but the terminal ones, and none of the outstanding ones is terminal', () => {
    for (const state of runStates) {
      const leaving = runTransitionNames.filter((name) => canTake(name, state) && runTransitions[name].to !== state);
      expect(leaving.length > 0, state).toBe(!terminalRunStates.includes(state));
    }
    expect(outstandingRunStates.every((state) => !terminalRunStates.includes(state))).toBe(true);
    expect(claimedStates).toEqual(['claimed']);
  });

  it('[RUN3] names the documented transitions with their from- and to-states', () => {
    const table = Object.fromEntries(runTransitionNames.map((name) => [name, `${runTransitions[name].from.join('|')}→${runTransitions[name].to}`]));
    expect(table).toEqual({
      send: '→queued',
      claim: 'queued→claimed',
      leaseExpired: 'claimed→queued',
      complete: 'claimed→review',
      fail: 'claimed→failed',
      cancel: 'queued|claimed→cancelled',
      accept: 'review→accepted',
      discard: 'review→discarded',
      undoDiscard: 'discarded→review',
      revert: 'accepted→accepted',
      undoRevert: 'accepted→accepted',
    });
  });
});
