/**
 * The states of a run by name (PROTOCOL.md RUN3; the transitions are in run-states.ts), in a
 * module of their own so that the browser's page can tell an outstanding run without loading
 * the record parser (run-record.ts, which re-exports them).
 */
export const runStates = ['queued', 'claimed', 'review', 'accepted', 'discarded', 'failed', 'cancelled'] as const;
export type RunState = (typeof runStates)[number];

/** At most one run of a document is in one of these states at a time. */
export const outstandingRunStates: readonly RunState[] = ['queued', 'claimed', 'review'];

/** The states of a run an editor decided (accepted, possibly reverted since, or discarded). */
export const decidedRunStates: readonly RunState[] = ['accepted', 'discarded'];

/** How many decided runs the page lists under Recent runs, newest first; the `<id>/runs` mirror always holds them. */
export const recentDecidedRuns = 5;
