import { runStates, type RunState } from './run-state-names.ts';

/**
 * The run lifecycle (PROTOCOL.md RUN3), the one place its transitions are written down: for each,
 * the states it leaves and the state it reaches. The run store builds the guards of its
 * conditional updates from it (`… WHERE state IN (from)`), and the services ask it whether a
 * run may take a step; `send` creates a run, so it leaves no state. `cancel` (an editor withdraws
 * a run no agent has finished, RUN6) ends it for good. Revert (REV8) and Undo
 * revert (REV14) are steps of an accepted run that keep it accepted.
 */
export const runTransitions = {
  send: { from: [], to: 'queued' },
  claim: { from: ['queued'], to: 'claimed' },
  leaseExpired: { from: ['claimed'], to: 'queued' },
  complete: { from: ['claimed'], to: 'review' },
  fail: { from: ['claimed'], to: 'failed' },
  cancel: { from: ['queued', 'claimed'], to: 'cancelled' },
  accept: { from: ['review'], to: 'accepted' },
  discard: { from: ['review'], to: 'discarded' },
  undoDiscard: { from: ['discarded'], to: 'review' },
  revert: { from: ['accepted'], to: 'accepted' },
  undoRevert: { from: ['accepted'], to: 'accepted' },
} as const satisfies Record<string, { from: readonly RunState[]; to: RunState }>;

export type RunTransition = keyof typeof runTransitions;

export const runTransitionNames = Object.keys(runTransitions) as RunTransition[];

/** The states `transition` leaves. */
export function fromStates(transition: RunTransition): readonly RunState[] {
  return runTransitions[transition].from;
}

/** Whether a run in `state` may take `transition`. */
export function canTake(transition: RunTransition, state: RunState): boolean {
  return fromStates(transition).includes(state);
}

/** The states a run holds an agent's claim in: those it can be completed or failed from. */
export const claimedStates: readonly RunState[] = fromStates('complete');

/** States no transition leaves for another state. */
export const terminalRunStates: readonly RunState[] = runStates.filter((state) =>
  runTransitionNames.every((name) => !canTake(name, state) || runTransitions[name].to === state),
);
