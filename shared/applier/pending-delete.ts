import * as Y from 'yjs';
import { blockHash } from '../model/doc-content.ts';
import { docParts } from '../model/doc-layout.ts';
import { readBlock } from './applier-write.ts';
import { clearChangeMarks } from './applier-marks.ts';
import type { Origin } from '../model/origins.ts';
import { forEachOwnItem, pendingDeleteAttr, pendingDeleteOf, writersSince, type PendingDelete } from './pending-delete-attr.ts';

export { notAppliedNote, parsePendingDelete, pendingDeleteAttr, pendingDeleteOf, type PendingDelete } from './pending-delete-attr.ts';

/**
 * Deletion on Accept (PROTOCOL.md OP7, REV6): a run never removes a top-level block. It marks
 * it with the `deleting` attribute (shared/model/schema.ts) and the block stays in the text, shown
 * struck through, until the run is decided:
 * - Discard undoes the run, which takes the attribute off again: nothing was removed, so every
 *   character people typed in the block meanwhile, online or offline, is still there;
 * - Accept removes each marked block whose content is still what the run read, and keeps (the
 *   attribute taken off) each one that people changed meanwhile, saying who.
 *
 * Removing the Yjs node at once would lose typing: an edit that reaches the server after the
 * delete (an offline person's, or one in flight) integrates into the deleted node, where it is
 * invisible, and Discard restores a copy of the node as it was deleted, without it.
 *
 * The attribute's value is a JSON string `{runId, blockId, hash, seen}`: the run, the id the
 * block had when the run read it (a replacement by another block type moves the id to the new
 * block and gives the old one a fresh id), the hash the run read, and the state vector of the
 * block's own Yjs items at that moment (client → next clock), which tells whose items came
 * later.
 */

/**
 * Marks `yblock` for deletion by run `runId` (inside the applier's transaction). `blockId` is
 * the id the run knew it by; `newId`, when given, becomes the block's id from now on.
 */
export function markPendingDelete(yblock: Y.XmlElement, runId: string, blockId: string, hash: string, newId?: string): void {
  const seen: Record<string, number> = {};
  forEachOwnItem(yblock, (item) => {
    const next = item.id.clock + item.length;
    const key = String(item.id.client);
    if ((seen[key] ?? 0) < next) seen[key] = next;
  });
  if (newId !== undefined) yblock.setAttribute('id', newId);
  yblock.setAttribute(pendingDeleteAttr, JSON.stringify({ runId, blockId, hash, seen } satisfies PendingDelete));
}

/** What became of a block a run marked for deletion, as Accept would find it now. */
export interface PendingState {
  yblock: Y.XmlElement;
  pending: PendingDelete;
  /** People changed the block since the run read it: Accept keeps it. */
  changed: boolean;
  /** The Yjs clients whose items in the block came after the run read it (the changers). */
  clients: number[];
}

/** Every top-level block of `ydoc` that run `runId` marked for deletion, with its state. */
export function pendingDeletes(ydoc: Y.Doc, runId: string): PendingState[] {
  const states: PendingState[] = [];
  for (const yblock of docParts(ydoc).content.toArray()) {
    const pending = pendingDeleteOf(yblock);
    if (!pending || pending.runId !== runId) continue;
    const element = yblock as Y.XmlElement;
    const node = readBlock(element);
    states.push({ yblock: element, pending, changed: node === null || blockHash(node) !== pending.hash, clients: writersSince(element, pending) });
  }
  return states;
}

/** Removes the blocks `states` holds that are unchanged; takes the mark off the changed ones. */
function settlePendingDeletes(ydoc: Y.Doc, states: readonly PendingState[]): void {
  const yfragment = docParts(ydoc).content;
  for (const { yblock, changed } of states) {
    if (yblock._item?.deleted !== false) continue;
    if (changed) {
      yblock.removeAttribute(pendingDeleteAttr);
      continue;
    }
    const index = yfragment.toArray().indexOf(yblock);
    if (index >= 0) yfragment.delete(index, 1);
  }
}

/**
 * Accept run's writes to the text (REV1, REV6), as one transaction with `origin`: the run's
 * unchanged pending deletes are carried out, the changed ones kept, and the run's change marks
 * removed. Returns the pending deletes as it found them (`changed` ones were kept) and what the
 * deletes removed (`removed`: part of the run's scope from now on, so Revert brings it back, REV8).
 * With `items`, only those items' deletes and marks (an item's Accept, REV12).
 */
export function acceptRunText(
  ydoc: Y.Doc,
  runId: string,
  origin: Origin,
  items?: ItemsOfRun,
): { states: PendingState[]; removed: DeleteSet } {
  const states = pendingDeletes(ydoc, runId).filter(({ yblock }) => !items || (yblock._item !== null && items.owns(yblock._item)));
  let removed = Y.createDeleteSet();
  ydoc.transact((transaction) => {
    settlePendingDeletes(ydoc, states);
    removed = copyDeleteSet(transaction.deleteSet);
    clearChangeMarks(ydoc, runId, origin, items?.instructionIds);
  }, origin);
  return { states, removed };
}

type DeleteSet = Y.UndoManager['undoStack'][number]['insertions'];

/** Some items of a run (REV12): their instructions, and whether a top-level block is theirs. */
export interface ItemsOfRun {
  instructionIds: ReadonlySet<string>;
  owns(top: Y.Item): boolean;
}

/** A sorted copy of a transaction's delete set so far (Yjs sorts and merges its own in place later). */
function copyDeleteSet(ds: DeleteSet): DeleteSet {
  const copy = Y.createDeleteSet();
  for (const [client, ranges] of ds.clients) {
    // Yjs reads only `clock` and `len` of a delete set's entries.
    copy.clients.set(client, ranges.map(({ clock, len }) => ({ clock, len })) as typeof ranges);
  }
  return Y.mergeDeleteSets([copy]);
}

