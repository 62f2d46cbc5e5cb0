import type { Annotation } from '../shared/notes/annotations.ts';
import type { RunRecord } from '../shared/protocol/run-record.ts';
import { outstandingRunStates, type RunState } from '../shared/protocol/run-state-names.ts';
import { canTake } from '../shared/protocol/run-states.ts';

/**
 * What the page says about a document's runs, as read from the server-written `<id>/runs` Y.Doc
 * (`readRuns`, client/document-records.ts).
 */

/** An agent present in the document's awareness, and what it says it is doing. */
export interface AgentPresence {
  name: string;
  status: string | null;
}

export function isOutstanding(state: RunState): boolean {
  return outstandingRunStates.includes(state);
}

/** The run of the document that is queued, claimed or in review (at most one), or null. */
export function outstandingRun(runs: readonly RunRecord[]): RunRecord | null {
  return runs.find((run) => isOutstanding(run.state)) ?? null;
}

/** The run the progress line is about: the outstanding one, else the newest if it failed. */
export function runInProgress(runs: readonly RunRecord[]): RunRecord | null {
  const outstanding = outstandingRun(runs);
  if (outstanding) return outstanding.state === 'review' ? null : outstanding;
  return runs[0]?.state === 'failed' ? runs[0] : null;
}

/**
 * The work order the run of `instruction` carried for it (copied at Send), or null when it has
 * no run or the run is not known here. It differs from the instruction's text when the text was
 * edited after Send (NOTES5).
 */
export function sentWorkOrder(runs: readonly RunRecord[], instruction: Annotation): string | null {
  if (instruction.kind !== 'instruction' || instruction.runId === null) return null;
  const run = runs.find((each) => each.runId === instruction.runId);
  return run?.items.find((item) => item.instructionId === instruction.id)?.instruction ?? null;
}

/** The run in review, or null. */
export function runInReview(runs: readonly RunRecord[]): RunRecord | null {
  const outstanding = outstandingRun(runs);
  return outstanding?.state === 'review' ? outstanding : null;
}

/** The run that may be cancelled now (RUN6): the outstanding one while queued or claimed, or null. */
export function cancellableRun(runs: readonly RunRecord[]): RunRecord | null {
  const outstanding = outstandingRun(runs);
  return outstanding && canTake('cancel', outstanding.state) ? outstanding : null;
}

/** Why no new run may be sent now (RUN2), or null when nothing is outstanding. */
export function sendBlocker(runs: readonly RunRecord[]): string | null {
  switch (outstandingRun(runs)?.state) {
    case 'queued':
      return 'A run is waiting for an agent';
    case 'claimed':
      return 'An agent is working on a run';
    case 'review':
      return 'A run is in review: accept or discard it first';
    default:
      return null;
  }
}

export interface RunProgress {
  text: string;
  /** True while an agent is expected to be busy (the page shows an activity indicator). */
  busy: boolean;
  failed: boolean;
}

/**
 * The progress line for a queued, claimed or failed run; null for any other. The agent's name
 * comes from the run's claim, else from awareness; what it is doing from its awareness status.
 */
export function runProgress(run: RunRecord | null, agents: readonly AgentPresence[]): RunProgress | null {
  if (!run) return null;
  switch (run.state) {
    case 'queued':
      return { text: 'Sent · waiting for an agent', busy: true, failed: false };
    case 'claimed': {
      const claimant = run.claimedBy;
      const present = claimant
        ? agents.find((agent) => agent.name === claimant.name)
        : agents.find((agent) => agent.status !== null);
      const name = run.claimedBy?.name ?? present?.name ?? 'An agent';
      const doing = present?.status?.trim() || `working on ${instructionCount(run.items.length)}`;
      return { text: `${name} is ${doing.replace(/[.…]+$/, '')}…`, busy: true, failed: false };
    }
    case 'failed':
      return {
        text: `The run failed${run.error ? `: ${run.error.replace(/\.$/, '')}` : ''}. Its instructions are back in the queue.`,
        busy: false,
        failed: true,
      };
    default:
      return null;
  }
}

export function instructionCount(count: number): string {
  return count === 1 ? '1 instruction' : `${count} instructions`;
}
