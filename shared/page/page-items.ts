import type { ItemDecision, RunChange, RunState } from '../protocol/run-record.ts';
import type { PageChange } from './page-applier.ts';
import { elementIdAttribute } from './page-tools.ts';

/**
 * The items of a page run (REV12 on a page, PAGE7): an element is the item's of the first
 * change that names it, as a block is on text, so two instructions of one run on one element
 * are decided together by the first. These say which of a run's page changes an item owns and
 * which the run still stages as its candidate.
 */

interface ItemsOfRun {
  state: RunState;
  items: readonly { instructionId: string; decision: ItemDecision | null }[];
}

/** The changes, in their order, whose element is owned by one of the items `ids`. */
export function pageItemChanges(changes: readonly PageChange[], ids: ReadonlySet<string>): PageChange[] {
  const owner = new Map<string, string>();
  for (const change of changes) if (!owner.has(change.elementId)) owner.set(change.elementId, change.instructionId);
  return changes.filter((change) => ids.has(owner.get(change.elementId) ?? change.instructionId));
}

/**
 * The changes a page run stages over the page's source now: while it is in review, those of
 * the items not decided yet (an accepted item is in the source already, a discarded one is
 * gone); of an accepted run, those of the items not discarded (what Revert takes back,
 * PAGE13; a run decided before items had decisions reads them as null); else all.
 */
export function stagedPageChanges(run: ItemsOfRun, changes: readonly PageChange[]): PageChange[] {
  if (run.state !== 'review' && run.state !== 'accepted') return [...changes];
  const staged = run.items.filter((item) => (run.state === 'review' ? item.decision === null : item.decision !== 'discarded'));
  return pageItemChanges(changes, new Set(staged.map((item) => item.instructionId)));
}

/** What the review says of a page change Accept could not apply (REV6 on a page). */
export const elementRemovedNote = 'Not applied: the element was removed meanwhile.';

/**
 * REV6 on a page: the notes of the changes among `accepting` that Accept cannot apply, by their
 * position in the run's changes: those whose element is neither in the source (`present`, the
 * ids it holds now) nor made by an earlier change of the run (people removed it meanwhile).
 */
export function pageNotApplied(runChanges: readonly RunChange[], accepting: readonly PageChange[], present: ReadonlySet<string>): Map<number, string> {
  const named = new Set(accepting.map((change) => change.elementId));
  const notes = new Map<number, string>();
  runChanges.forEach((change, position) => {
    if (!named.has(change.blockId) || present.has(change.blockId)) return;
    const made = runChanges.slice(0, position).some((earlier) => earlier.after?.includes(`${elementIdAttribute}="${change.blockId}"`));
    if (!made) notes.set(position, elementRemovedNote);
  });
  return notes;
}
