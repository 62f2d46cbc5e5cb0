import type { AgentApiClient, AgentAside, ClaimedRun } from '../agent-api-client.ts';

/** Where the reference agent is in its run: the item it works on (0-based) and what it did so far. */
export interface RunProgress {
  index: number;
  changed: number;
  refused: number;
}

/** What the reference agent answers to a steer: it follows its instructions as written. */
export const cannotSteer =
  'The reference agent cannot change course during a run: it carries out the instructions as they were sent. ' +
  'Discard the run with a reason, or pin a new instruction for the next run.';

/**
 * ASIDE9: the reference agent's answer to a side question, from the run's state: which item
 * it is on and what it did so far. Deterministic, so tests can read it.
 */
export function progressAnswer(run: ClaimedRun, progress: RunProgress): string[] {
  const total = run.items.length;
  const index = Math.min(progress.index, total - 1);
  const item = run.items[index];
  const doing = progress.index >= total ? `Finishing the run of ${total} item${total === 1 ? '' : 's'}.` : `Working on item ${index + 1} of ${total}: “${item.instruction}”.`;
  return [doing, ` So far ${progress.changed} changed, ${progress.refused} refused.`];
}

/**
 * Answers one aside of `run`: a question with where the run is, streamed in two pieces; a steer
 * with `cannotSteer`, as the agent cannot follow it.
 */
export async function answerReferenceAside(client: AgentApiClient, run: ClaimedRun, progress: RunProgress, aside: AgentAside): Promise<void> {
  if (aside.kind === 'steer') {
    await client.answerAside(run.runId, aside.asideId, { answer: cannotSteer, done: true, route: 'agent' });
    return;
  }
  const [first, rest] = progressAnswer(run, progress);
  await client.answerAside(run.runId, aside.asideId, { chunk: first });
  await client.answerAside(run.runId, aside.asideId, { chunk: rest, done: true, route: 'side' });
}
