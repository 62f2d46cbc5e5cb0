import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { RunRecord, RunState } from '../shared/protocol/run-record.ts';
import { instructionCount } from './run-status.ts';

/**
 * Tells screen-reader users what happened to a document's runs while they were not the ones
 * acting: a run that arrived for review, and a run someone else accepted, discarded or reverted,
 * or whose discard someone else undid. It
 * watches the state of the runs in the `<id>/runs` mirror, not anybody's clicks, and asks the
 * app to announce (`announce` event, detail: the sentence) in its one polite live region.
 */

/** The event the app's live region listens for; its detail is the sentence to announce. */
export const announceEvent = 'announce';

/**
 * What to announce when the mirror goes from `known` (run id → state, as last seen) to `runs`.
 * Only runs already known that changed state are told: a page that opens, or a mirror that
 * first syncs, announces nothing. A decision is not told to the person who made it (`me`).
 */
export function runAnnouncements(known: ReadonlyMap<string, RunStatus>, runs: readonly RunRecord[], me: string): string[] {
  const sentences: string[] = [];
  for (const run of [...runs].reverse()) {
    const was = known.get(run.runId);
    if (was === undefined || was === statusOf(run)) continue;
    if (run.reverted) {
      if (run.reverted.by.id !== me) sentences.push(`Run reverted by ${run.reverted.by.name}`);
    } else if (run.state === 'review' && was === 'discarded') {
      sentences.push('Discard undone: the run is in review again');
    } else if (run.state === 'review') {
      const who = run.claimedBy?.name ?? 'The agent';
      sentences.push(`Run ready for review: ${who} answered ${instructionCount(run.items.length)}`);
    } else if ((run.state === 'accepted' || run.state === 'discarded' || run.state === 'cancelled') && run.decidedBy?.id !== me) {
      sentences.push(`Run ${run.state}${run.decidedBy ? ` by ${run.decidedBy.name}` : ''}`);
    }
  }
  return sentences;
}

/** What the announcer compares: the run's state, or `reverted` (REV8: the state stays `accepted`). */
export type RunStatus = RunState | 'reverted';

export function statusOf(run: RunRecord): RunStatus {
  return run.reverted ? 'reverted' : run.state;
}

/**
 * Compares the runs `read()` gives before each render of the host with those it saw last, and
 * dispatches an `announce` event from the host for each sentence. `source()` names what the
 * runs belong to (the document): when it changes, the next runs are only remembered.
 */
export class RunAnnouncer implements ReactiveController {
  private seen: { source: unknown; runs: readonly RunRecord[]; states: Map<string, RunStatus> } | null = null;

  constructor(
    private readonly host: ReactiveControllerHost & HTMLElement,
    private readonly source: () => unknown,
    private readonly read: () => readonly RunRecord[],
    private readonly me: () => string,
  ) {
    host.addController(this);
  }

  hostDisconnected(): void {
    this.seen = null;
  }

  hostUpdate(): void {
    const source = this.source();
    const runs = this.read();
    const seen = this.seen;
    if (seen && seen.source === source && seen.runs === runs) return;
    const sentences = seen && seen.source === source && source !== null ? runAnnouncements(seen.states, runs, this.me()) : [];
    this.seen = { source, runs, states: new Map(runs.map((run) => [run.runId, statusOf(run)])) };
    for (const sentence of sentences) {
      this.host.dispatchEvent(new CustomEvent(announceEvent, { detail: sentence, bubbles: true, composed: true }));
    }
  }
}
