import * as Y from 'yjs';
import { docParts } from '../model/doc-layout.ts';
import { newBlockId } from '../model/block-ids.ts';
import { serverOrigin } from '../model/origins.ts';
import { instructionOf, itemsUnder, type RevertedChange } from './run-revert.ts';
import { insertedRoots, renewRepeatedIds, sparePeoplesTyping, subtract } from './undo-keeps-typing.ts';
import { difference, goneIn, goneOf, holdsParts, instructionOfItem, mergeItems, stackItem, wholeScope, withCopies, type ScopePart } from './item-parts.ts';
import { pendingDeleteAttr } from './pending-delete-attr.ts';
import { clearChangeMarks } from './applier-marks.ts';
import { keepPartsForRedo } from './discard-parts.ts';

/**
 * Review item by item (PROTOCOL.md REV12): an item is one instruction of a run and every change
 * that answers it. The run's undo manager holds one stack item per instruction (item-parts.ts):
 * exactly the Yjs items its writes inserted and deleted, so that deciding one item touches its
 * own characters, nodes and marks only, whatever other items of the run did to the same block.
 * A scope that does not tell its parts (stored before them, or rebuilt by Undo revert) falls
 * back to blocks: the part of an item is then what lies in the blocks (at any depth, OP12) its
 * changes own (`instructionOf`), a block shared by two items being the first change's.
 */

type DeleteSet = Y.UndoManager['undoStack'][number]['insertions'];

export type { ScopePart } from './item-parts.ts';

/**
 * The part of a scope (`insertions`, `deletions`) under the blocks owned by instructions `keep`
 * says yes to. Ownership goes block by block at any depth (OP12): within a list, each item (and
 * each block inside one) is the item's of the change that names it, or of the block it follows.
 */
export function scopePart(
  ydoc: Y.Doc,
  scope: ScopePart,
  changes: readonly RevertedChange[],
  keep: (instructionId: string) => boolean,
): ScopePart {
  const inScope = (item: Y.Item) => Y.isDeleted(scope.insertions, item.id) || Y.isDeleted(scope.deletions, item.id);
  const left: Y.Item[] = [];
  for (let top = docParts(ydoc).content._start; top !== null; top = top.right) {
    if (!(top.content instanceof Y.ContentType)) continue;
    if (!itemsUnder(top).some(inScope)) continue;
    for (const { block, items } of blocksUnder(top)) {
      if (items.some(inScope) && !keep(instructionOf(block, changes))) left.push(...items);
    }
  }
  if (left.length === 0) return scope;
  return { insertions: subtract(scope.insertions, left), deletions: subtract(scope.deletions, left) };
}

/**
 * The element items at and under `top`, each with its own items: itself, its attributes, and
 * everything under its children that are not elements (its text); a child element is a block
 * of its own.
 */
function blocksUnder(top: Y.Item): { block: Y.Item; items: Y.Item[] }[] {
  const out: { block: Y.Item; items: Y.Item[] }[] = [];
  const walk = (block: Y.Item) => {
    const items: Y.Item[] = [block];
    out.push({ block, items });
    const type = (block.content as Y.ContentType).type;
    for (const last of type._map.values()) for (let entry: Y.Item | null = last; entry !== null; entry = entry.left) items.push(entry);
    for (let child = type._start; child !== null; child = child.right) {
      if (child.content instanceof Y.ContentType && child.content.type instanceof Y.XmlElement) walk(child);
      else items.push(...itemsUnder(child));
    }
  };
  walk(top);
  return out;
}

/** Everything `undoManager` can take back, merged into one part. */
export function managerScope(undoManager: Y.UndoManager): ScopePart {
  return wholeScope(undoManager.undoStack);
}

/**
 * Discard of some items: takes back the part of the run's scope owned by `instructionIds`, as
 * one undo of `undoManager` (sparing people's typing and renewing repeated ids as Discard run
 * does, REV7), so its redo stack holds it for Undo discard (REV9). The manager keeps the rest
 * of the scope, for the other items. Text the undo gives back that items already `accepted`
 * wrote (these items had rewritten it) loses its change marks again, and no mark of these
 * items is left (another item's format item may reopen one), in a second transaction with the
 * server's origin, as a renewed id does. Returns false when there was nothing to take back.
 */
export function undoRunItems(
  undoManager: Y.UndoManager,
  changes: readonly RevertedChange[],
  instructionIds: ReadonlySet<string>,
  accepted?: { runId: string; instructionIds: ReadonlySet<string> },
): boolean {
  const ydoc = undoManager.doc;
  let part: ScopePart;
  let rest: Y.UndoManager['undoStack'];
  let taken: Y.UndoManager['undoStack'] = [];
  const withParts = holdsParts(undoManager);
  if (withParts) {
    const ours = (item: Y.UndoManager['undoStack'][number]) => goneIn(item) === null && instructionIds.has(instructionOfItem(item) as string);
    taken = undoManager.undoStack.filter(ours);
    const own = mergeItems(taken);
    // What items discarded before had inserted stays gone, even where these items had deleted it.
    part = { insertions: own.insertions, deletions: difference(own.deletions, goneOf(undoManager.undoStack)) };
    rest = undoManager.undoStack.filter((item) => !ours(item));
  } else {
    const whole = managerScope(undoManager);
    part = scopePart(ydoc, whole, changes, (id) => instructionIds.has(id));
    rest = [stackItem(scopePart(ydoc, whole, changes, (id) => !instructionIds.has(id)))];
  }
  const { insertions, spared } = sparePeoplesTyping(ydoc, part.insertions, part.deletions);
  undoManager.undoStack = [stackItem({ insertions, deletions: part.deletions })];
  undoManager.stopCapturing();
  const undone = undoManager.undo() !== null;
  if (withParts) {
    // The other parts own the copies the undo made of their text; these items' insertions are gone.
    rest = rest.map((item) => (goneIn(item) === null ? withCopies(ydoc, item, part.deletions) : item));
    rest.push(stackItem({ insertions: Y.createDeleteSet(), deletions: Y.createDeleteSet() }, [...instructionIds][0] ?? '', part.insertions));
  }
  undoManager.undoStack = rest;
  // Undo discard redoes this undo and gives these items their parts back (discard-parts.ts).
  if (withParts) keepPartsForRedo(undoManager, undone, taken, rest[rest.length - 1] ?? null);
  // A block the other items wrote may carry the id the undo gave back to a block these items had
  // replaced (one item's block replaced by another's, OP7): the other item's block takes a fresh one.
  renewRepeatedIds(ydoc, [...spared, ...insertedRoots(ydoc, managerScope(undoManager).insertions)], newBlockId, serverOrigin);
  // Text of an accepted item that these items had replaced comes back with its change marks;
  // and where another item reopened one of these items' marks after its own text (a format item
  // of that item's part), the mark would now run on over the text after it.
  if (undone && accepted) clearChangeMarks(ydoc, accepted.runId, serverOrigin, new Set([...accepted.instructionIds, ...instructionIds]));
  return undone;
}

/**
 * Adds `deletions` (what Accept removed for items `instructionIds`) to the manager's scope, for
 * a later Revert (REV8): as a part of the first of them when the manager holds parts.
 */
export function keepInScope(undoManager: Y.UndoManager, deletions: DeleteSet, instructionIds: ReadonlySet<string>): void {
  const first = [...instructionIds][0];
  if (holdsParts(undoManager) && first !== undefined) {
    undoManager.undoStack = [...undoManager.undoStack, stackItem({ insertions: Y.createDeleteSet(), deletions }, first)];
    return;
  }
  const whole = managerScope(undoManager);
  undoManager.undoStack = [stackItem({ insertions: whole.insertions, deletions: Y.mergeDeleteSets([whole.deletions, deletions]) })];
}

/**
 * Items `instructionIds` of a run with `changes`, as Accept's pending deletes ask (pending-delete.ts):
 * a block is theirs when one of their parts wrote its pending delete (else, without parts, when
 * its change is theirs, `instructionOf`).
 */
export function itemsOfRun(
  undoManager: Y.UndoManager,
  changes: readonly RevertedChange[],
  instructionIds: ReadonlySet<string>,
): { instructionIds: ReadonlySet<string>; owns(block: Y.Item): boolean } {
  if (!holdsParts(undoManager)) return { instructionIds, owns: (block) => instructionIds.has(instructionOf(block, changes)) };
  const { insertions } = mergeItems(undoManager.undoStack.filter((item) => instructionIds.has(instructionOfItem(item) as string)));
  return {
    instructionIds,
    owns: (block) => {
      const entry = (block.content as Y.ContentType).type._map.get(pendingDeleteAttr);
      return entry !== undefined && Y.isDeleted(insertions, entry.id);
    },
  };
}
