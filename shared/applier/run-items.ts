import * as Y from 'yjs';
import { docParts } from '../model/doc-layout.ts';
import { newBlockId } from '../model/block-ids.ts';
import { serverOrigin } from '../model/origins.ts';
import { instructionOf, itemsUnder, type RevertedChange } from './run-revert.ts';
import { renewRepeatedIds, sparePeoplesTyping, subtract } from './undo-keeps-typing.ts';

/**
 * Review item by item (PROTOCOL.md REV12): an item is one instruction of a run and every change
 * that answers it. The run's undo scope is one pair of DeleteSets for all of its batches; the
 * part of an item is what lies in the blocks (at any depth, OP12) that item's changes own
 * (`instructionOf`: the block a change names, a block a run inserted follows its anchor, a
 * block the run marked for deletion names the id the run knew it by). Of two instructions of
 * one run that target the same block, the block is the item's of the first change naming it.
 */

type DeleteSet = Y.UndoManager['undoStack'][number]['insertions'];
type StackItem = Y.UndoManager['undoStack'][number];

export interface ScopePart {
  insertions: DeleteSet;
  deletions: DeleteSet;
}

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
  const items = undoManager.undoStack;
  return {
    insertions: Y.mergeDeleteSets(items.map((item) => item.insertions)),
    deletions: Y.mergeDeleteSets(items.map((item) => item.deletions)),
  };
}

/**
 * Discard of some items: takes back the part of the run's scope owned by `instructionIds`, as
 * one undo of `undoManager` (sparing people's typing and renewing repeated ids as Discard run
 * does, REV7), so its redo stack holds it for Undo discard (REV9). The manager keeps the rest
 * of the scope, for the other items. Returns false when there was nothing to take back.
 */
export function undoRunItems(undoManager: Y.UndoManager, changes: readonly RevertedChange[], instructionIds: ReadonlySet<string>): boolean {
  const ydoc = undoManager.doc;
  const whole = managerScope(undoManager);
  const part = scopePart(ydoc, whole, changes, (id) => instructionIds.has(id));
  const rest = scopePart(ydoc, whole, changes, (id) => !instructionIds.has(id));
  const { insertions, spared } = sparePeoplesTyping(ydoc, part.insertions, part.deletions);
  undoManager.undoStack = [stackItem({ insertions, deletions: part.deletions })];
  undoManager.stopCapturing();
  const undone = undoManager.undo() !== null;
  undoManager.undoStack = [stackItem(rest)];
  renewRepeatedIds(ydoc, spared, newBlockId, serverOrigin);
  return undone;
}

/** Adds `deletions` (what Accept removed for some items) to the manager's scope, for a later Revert (REV8). */
export function keepInScope(undoManager: Y.UndoManager, deletions: DeleteSet): void {
  const whole = managerScope(undoManager);
  undoManager.undoStack = [stackItem({ insertions: whole.insertions, deletions: Y.mergeDeleteSets([whole.deletions, deletions]) })];
}

function stackItem(part: ScopePart): StackItem {
  // Y.UndoManager reads only these three fields of a stack item (StackItem is not exported).
  return { insertions: part.insertions, deletions: part.deletions, meta: new Map<unknown, unknown>() } as StackItem;
}

/** Items `instructionIds` of a run with `changes`, as Accept's pending deletes ask (pending-delete.ts). */
export function itemsOfRun(changes: readonly RevertedChange[], instructionIds: ReadonlySet<string>): { instructionIds: ReadonlySet<string>; owns(block: Y.Item): boolean } {
  return { instructionIds, owns: (block) => instructionIds.has(instructionOf(block, changes)) };
}
