import type { RunChange } from '../../shared/protocol/run-record.ts';

/** VAR1: the instructions a run's changes answer, each with whether by variants (the appliers' `answered`). */
export function answeredInstructions(run: { changes: readonly RunChange[] }): Map<string, boolean> {
  const answered = new Map<string, boolean>();
  for (const change of run.changes) answered.set(change.instructionId, (answered.get(change.instructionId) ?? false) || change.variants !== undefined);
  return answered;
}
