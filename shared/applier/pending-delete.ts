import * as Y from 'yjs';
import { blockHash, withoutPendingDeletes } from '../model/doc-content.ts';
import { holdsBlocks, schema } from '../model/schema.ts';
import { docParts } from '../model/doc-layout.ts';
import { readBlock } from './applier-write.ts';
import { clearChangeMarks } from './applier-marks.ts';
import type { Origin } from '../model/origins.ts';
import { forEachOwnItem, pendingDeleteAttr, pendingDeleteOf, writersSince, type PendingDelete } from './pending-delete-attr.ts';

export { notAppliedNote, parsePendingDelete, pendingDeleteAttr, pendingDeleteOf, type PendingDelete } from './pending-delete-attr.ts';

/**
 * Deletion on Accept (PROTOCOL.md OP7, REV6): a run never removes a block (at any depth, OP12). It marks
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

/**
 * Every block of `ydoc`, at any depth (OP12), that run `runId` marked for deletion, with its
 * state, in document order. Its hash is read as the run read it: without the blocks inside it
 * that are pending deletes themselves.
 */
export function pendingDeletes(ydoc: Y.Doc, runId: string): PendingState[] {
  const states: PendingState[] = [];
  const visit = (parent: Y.XmlFragment | Y.XmlElement) => {
    for (const yblock of parent.toArray()) {
      if (!(yblock instanceof Y.XmlElement)) continue;
      const pending = pendingDeleteOf(yblock);
      if (pending && pending.runId === runId) {
        const node = readBlock(yblock);
        const changed = node === null || blockHash(withoutPendingDeletes(node)) !== pending.hash;
        states.push({ yblock, pending, changed, clients: writersSince(yblock, pending) });
      }
      const type = schema.nodes[yblock.nodeName];
      if (type !== undefined && holdsBlocks(type)) visit(yblock);
    }
  };
  visit(docParts(ydoc).content);
  // A block that holds a changed one (people typed in a nested block the run also deleted, which
  // the block's own hash leaves out) is changed too: removing it would take their text along.
  const byBlock = new Map(states.map((state) => [state.yblock, state]));
  for (const state of states) {
    if (!state.changed) continue;
    for (let parent = state.yblock.parent; parent instanceof Y.XmlElement; parent = parent.parent) {
      const holder = byBlock.get(parent);
      if (holder === undefined) continue;
      holder.changed = true;
      holder.clients = [...new Set([...holder.clients, ...state.clients])];
    }
  }
  return states;
}

/**
 * Removes the blocks `states` holds that are unchanged; takes the mark off the changed ones. A
 * list item or a list that a removal leaves empty goes with it (OP12): the last item of a list
 * deleted leaves no empty list behind.
 */
function settlePendingDeletes(states: readonly PendingState[]): void {
  for (const { yblock, changed } of states) {
    if (isGone(yblock)) continue;
    if (changed) {
      yblock.removeAttribute(pendingDeleteAttr);
      continue;
    }
    let removed: Y.XmlElement = yblock;
    let parent = removed.parent;
    while (parent instanceof Y.XmlElement && parent.length === 1 && emptiedGoes(parent)) {
      removed = parent;
      parent = removed.parent;
    }
    if (!(parent instanceof Y.XmlElement || parent instanceof Y.XmlFragment)) continue;
    const index = parent.toArray().indexOf(removed);
    if (index >= 0) parent.delete(index, 1);
  }
}

/** Whether an element left empty by Accept goes too: a list item, or a list. */
function emptiedGoes(yelement: Y.XmlElement): boolean {
  return yelement.nodeName === 'list_item' || yelement.nodeName === 'bullet_list' || yelement.nodeName === 'ordered_list';
}

/** Whether the element, or one holding it, is deleted. */
function isGone(yelement: Y.XmlElement): boolean {
  for (let item = yelement._item; item !== null; item = (item.parent as Y.AbstractType<unknown>)._item) {
    if (item.deleted) return true;
  }
  return yelement._item === null;
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
    settlePendingDeletes(states);
    removed = copyDeleteSet(transaction.deleteSet);
    clearChangeMarks(ydoc, runId, origin, items?.instructionIds);
  }, origin);
  return { states, removed };
}

type DeleteSet = Y.UndoManager['undoStack'][number]['insertions'];

/** Some items of a run (REV12): their instructions, and whether a block (at any depth) is theirs. */
export interface ItemsOfRun {
  instructionIds: ReadonlySet<string>;
  owns(block: Y.Item): boolean;
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

