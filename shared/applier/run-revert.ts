import * as Y from 'yjs';
import { docParts } from '../model/doc-layout.ts';
import { newBlockId } from '../model/block-ids.ts';
import type { Origin } from '../model/origins.ts';
import type { NotReverted } from '../protocol/run-record.ts';
import { runUndoManager, type SavedRunScope } from './run-scope.ts';
import { parsePendingDelete, pendingDeleteAttr } from './pending-delete-attr.ts';
import { renewRepeatedIds, sparePeoplesTyping, subtract } from './undo-keeps-typing.ts';

/**
 * Revert run (PROTOCOL.md REV8): takes back an accepted run's changes, long after, as one new
 * transaction, keeping everything written since. The run's stored scope (its insertions, and its
 * deletions plus the blocks Accept removed for it) is undone by a Y.UndoManager, which deletes
 * only the run's own items and restores only what the run deleted: people's later edits and
 * later runs stay.
 *
 * A block where that would not give back what the run found is left out, whole, and listed:
 * - `rewritten`: some text the run wrote there was deleted since (by a person or a later run):
 *   restoring the old text beside what replaced it would duplicate it;
 * - `removed`: the block was deleted since (not by the run's own Accept).
 * People's typing inside the run's blocks stays (REV7, as for Discard).
 */

type DeleteSet = Y.UndoManager['undoStack'][number]['insertions'];

/** What the plan reads of the run's changes (`RunChange`). */
export interface RevertedChange {
  op: string;
  blockId: string;
  instructionId: string;
}

export interface RevertPlan {
  insertions: DeleteSet;
  deletions: DeleteSet;
  notReverted: NotReverted[];
}

/** Which part of `saved` can be taken back from `ydoc` now, and which changes cannot. */
export function planRevert(ydoc: Y.Doc, saved: SavedRunScope, changes: readonly RevertedChange[]): RevertPlan {
  let insertions = Y.decodeSnapshot(saved.insertions).ds;
  let deletions = Y.decodeSnapshot(saved.deletions).ds;
  const inserted = (item: Y.Item) => Y.isDeleted(insertions, item.id);
  const deleted = (item: Y.Item) => Y.isDeleted(deletions, item.id);
  const notReverted: NotReverted[] = [];
  const left: Y.Item[] = [];
  for (let top = docParts(ydoc).content._start; top !== null; top = top.right) {
    if (!(top.content instanceof Y.ContentType)) continue;
    const items = itemsUnder(top);
    if (!items.some((item) => inserted(item) || deleted(item))) continue;
    const removed = top.deleted && !deleted(top);
    // The run's own text or nodes (not removed by the run itself, batch after batch) deleted
    // since; format items do not count (Accept replaced the run's change marks).
    // A copy an item's Discard made of another item's text (REV12, item-parts.ts `withCopies`) stands for it.
    const rewritten = items.some((item) => item.countable && item.parentSub === null && item.deleted && inserted(item) && !deleted(item) && !copiedInScope(ydoc, item, inserted));
    if (!removed && !rewritten) continue;
    const blockId = idOf(top) ?? '';
    notReverted.push({ blockId, instructionId: instructionOf(top, changes), reason: removed ? 'removed' : 'rewritten' });
    left.push(...items);
  }
  // A block deleted since is usually collected whole (Yjs collects a deleted node's content
  // with it), so the walk above cannot see it: a replaced block whose id no block has any more.
  const live = liveIds(ydoc);
  for (const change of changes) {
    if (change.op !== 'replace_block' || live.has(change.blockId)) continue;
    if (notReverted.some((entry) => entry.blockId === change.blockId)) continue;
    notReverted.push({ blockId: change.blockId, instructionId: change.instructionId, reason: 'removed' });
  }
  if (left.length > 0) {
    insertions = subtract(insertions, left);
    deletions = subtract(deletions, left);
  }
  return { insertions, deletions, notReverted };
}

/**
 * Undoes `plan` on `ydoc` as one transaction with `origin` (sparing nodes people typed in, and
 * renewing an id the undo repeated, REV7). Returns whether anything changed.
 */
export function applyRevert(ydoc: Y.Doc, plan: RevertPlan, origin: Origin): boolean {
  const { insertions, spared } = sparePeoplesTyping(ydoc, plan.insertions, plan.deletions);
  // A fresh origin nobody writes with: the manager tracks nothing, it only undoes this item.
  const manager = runUndoManager(ydoc, Object.freeze({ kind: 'revert', runId: '' }));
  manager.undoStack.push({ insertions, deletions: plan.deletions, meta: new Map() } as (typeof manager.undoStack)[number]);
  let changed = false;
  // Yjs nests the undo's own transaction in this one, so the whole revert carries `origin`.
  ydoc.transact(() => {
    changed = manager.undo() !== null;
    renewRepeatedIds(ydoc, spared, newBlockId, origin);
  }, origin);
  manager.destroy();
  return changed;
}

/**
 * Whether redoing the redo items of `manager` (a discarded run, REV9) gives the run's text
 * back whole: no block holding any of it was deleted since by someone else.
 */
export function redoIsClean(ydoc: Y.Doc, manager: Y.UndoManager): boolean {
  if (manager.redoStack.length === 0) return false;
  // Every redo item: a run discarded item by item has one per step (REV12).
  const deletions = Y.mergeDeleteSets(manager.redoStack.map((item) => item.deletions));
  for (let top = docParts(ydoc).content._start; top !== null; top = top.right) {
    if (!top.deleted || !(top.content instanceof Y.ContentType) || Y.isDeleted(deletions, top.id)) continue;
    if (itemsUnder(top).some((under) => Y.isDeleted(deletions, under.id))) return false;
  }
  return true;
}

/** The item, its attributes and every node and character under it, deleted ones included. */
export function itemsUnder(top: Y.Item): Y.Item[] {
  const items: Y.Item[] = [];
  const walk = (item: Y.Item) => {
    items.push(item);
    if (!(item.content instanceof Y.ContentType)) return;
    const type = item.content.type;
    for (const last of type._map.values()) for (let entry: Y.Item | null = last; entry !== null; entry = entry.left) items.push(entry);
    for (let child = type._start; child !== null; child = child.right) walk(child);
  };
  walk(top);
  return items;
}

/** A block's id, read from its attribute item even when the block is deleted (if its content is kept). */
function idOf(top: Y.Item): string | null {
  const value = attributeOf(top, 'id');
  return typeof value === 'string' ? value : null;
}

/** An attribute of a block, read from its item even when the block is deleted (if its content is kept). */
function attributeOf(top: Y.Item, name: string): unknown {
  const entry = (top.content as Y.ContentType).type._map.get(name);
  return entry && !(entry.content instanceof Y.ContentDeleted) ? entry.content.getContent()[0] : null;
}

/**
 * The instruction of the run's change at the block `block` (an element item, at any depth,
 * OP12): the change of the block's own id, else that of the nearest block before it among its
 * siblings that a change names (a block the run inserted follows its anchor), else that of the
 * block holding it, and so on up to the top level.
 */
export function instructionOf(block: Y.Item, changes: readonly RevertedChange[]): string {
  for (let node: Y.Item | null = block; node !== null; node = holderOf(node)) {
    // A block a run replaced by another type or deleted names the id the run knew it by.
    const pending = parsePendingDelete(attributeOf(node, pendingDeleteAttr));
    const marked = pending && changes.find((candidate) => candidate.blockId === pending.blockId);
    if (marked) return marked.instructionId;
    for (let item: Y.Item | null = node; item !== null; item = item.left) {
      if (!(item.content instanceof Y.ContentType)) continue;
      const id = idOf(item);
      const change = changes.find((candidate) => candidate.blockId === id);
      if (change) return change.instructionId;
    }
  }
  return changes[0]?.instructionId ?? '';
}

/** The item of the element holding `item`'s element, or null at the top level. */
function holderOf(item: Y.Item): Y.Item | null {
  const parent = item.parent;
  return parent instanceof Y.XmlElement ? parent._item : null;
}

/** Every id the live text holds, at any depth. */
function liveIds(ydoc: Y.Doc): Set<string> {
  const ids = new Set<string>();
  const visit = (parent: Y.XmlFragment | Y.XmlElement) => {
    for (const child of parent.toArray()) {
      if (!(child instanceof Y.XmlElement)) continue;
      const id = child.getAttribute('id');
      if (typeof id === 'string') ids.add(id);
      visit(child);
    }
  };
  visit(docParts(ydoc).content);
  return ids;
}

/** Whether `item` was restored by an undo as a copy that `inserted` holds (the run's own copy of its text). */
function copiedInScope(ydoc: Y.Doc, item: Y.Item, inserted: (item: Y.Item) => boolean): boolean {
  let copy: Y.Item | null = item;
  while (copy !== null && copy.redone !== null) {
    const structs = ydoc.store.clients.get(copy.redone.client);
    const struct: Y.Item | Y.GC | undefined = structs?.[Y.findIndexSS(structs, copy.redone.clock)];
    copy = struct instanceof Y.Item ? struct : null;
  }
  return copy !== null && copy !== item && inserted(copy);
}
