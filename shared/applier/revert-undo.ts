import * as Y from 'yjs';
import { docParts } from '../model/doc-layout.ts';
import type { Origin } from '../model/origins.ts';
import { itemsUnder } from './run-revert.ts';
import { encodeDeleteSet, runUndoManager, type SavedRunScope } from './run-scope.ts';

/**
 * Undo revert (PROTOCOL.md REV14): a revert (run-revert.ts) is one transaction with its own
 * origin object; a Y.UndoManager tracking exactly that object, made just before it, holds the
 * revert as one stack item, so that undoing it deletes only what the revert restored and brings
 * back only what it took out (the run's text, as new items): what people typed since stays. The
 * undo's own change, captured on the redo stack, is then the run's scope again, so the run can
 * be reverted once more.
 */

type DeleteSet = Y.UndoManager['undoStack'][number]['insertions'];

/** The manager that will hold the revert written with `origin` on `ydoc`: make it just before. */
export function trackRevert(ydoc: Y.Doc, origin: Origin): Y.UndoManager {
  return runUndoManager(ydoc, origin);
}

/**
 * Whether undoing the revert held by `manager` gives the run's text back whole and alone: none
 * of the text the revert restored was deleted since (the run's text would come back beside what
 * replaced it), and no block holding text the revert took out was deleted since.
 */
export function revertUndoIsClean(ydoc: Y.Doc, manager: Y.UndoManager): boolean {
  if (manager.undoStack.length === 0) return false;
  const insertions: DeleteSet = Y.mergeDeleteSets(manager.undoStack.map((item) => item.insertions));
  const deletions: DeleteSet = Y.mergeDeleteSets(manager.undoStack.map((item) => item.deletions));
  for (let top = docParts(ydoc).content._start; top !== null; top = top.right) {
    if (!(top.content instanceof Y.ContentType)) continue;
    const items = itemsUnder(top);
    const restoredGone = items.some((item) => item.countable && item.parentSub === null && item.deleted && Y.isDeleted(insertions, item.id));
    if (restoredGone) return false;
    // A block the revert itself removed (the run had inserted it) comes back with the undo.
    if (top.deleted && !Y.isDeleted(deletions, top.id) && items.some((item) => Y.isDeleted(deletions, item.id))) return false;
  }
  return true;
}

/**
 * Undoes the revert held by `manager` (its own transaction, whose origin is the manager) and
 * answers the run's scope as it is now: what the undo inserted and what it deleted.
 */
export function undoRevert(manager: Y.UndoManager): SavedRunScope {
  while (manager.undoStack.length > 0) manager.undo();
  const redo = manager.redoStack;
  return {
    insertions: encodeDeleteSet(Y.mergeDeleteSets(redo.map((item) => item.insertions))),
    deletions: encodeDeleteSet(Y.mergeDeleteSets(redo.map((item) => item.deletions))),
  };
}

