import type { RunState } from '../../shared/protocol/run-record.ts';
import { fromStates, runTransitions, type RunTransition } from '../../shared/protocol/run-states.ts';

/*
 * SQL fragments of the run transition table (shared/protocol/run-states.ts), for the run store's
 * statements. The states are the table's own constants, never input, so they are inlined.
 */

/** `state IN (…)` of the states `transition` leaves. */
export function leaves(transition: RunTransition): string {
  return stateIn(fromStates(transition));
}

/** `state = …` of the state `transition` reaches. */
export function reaches(transition: RunTransition): string {
  return `state = '${runTransitions[transition].to}'`;
}

export function stateIn(states: readonly RunState[]): string {
  return `state IN (${states.map((state) => `'${state}'`).join(', ')})`;
}
