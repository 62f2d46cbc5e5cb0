import * as Y from 'yjs';
import { docParts } from '../model/doc-layout.ts';
import { newBlockId } from '../model/block-ids.ts';
import { serverOrigin, type Origin } from '../model/origins.ts';
import { renewRepeatedIds, sparePeoplesTyping } from './undo-keeps-typing.ts';
import { decodeParts, encodeParts, wholeScope } from './item-parts.ts';
import { keepPartsForRedo } from './discard-parts.ts';

/**
 * A run's undo scope: what Discard run takes back, held in a Y.UndoManager while the server
 * runs and persisted so that it survives a restart between apply and review.
 *
 * The UndoManager tracks only the run's origin object (shared/model/origins.ts: one per run), so
 * undo removes exactly the run's inserted items and restores exactly the items it deleted;
 * edits of every other origin stay. Its capture timeout never expires: call `stopCapturing()`
 * when the run starts and when it ends, and every batch in between is one stack item.
 *
 * A stack item is two DeleteSets (the run's insertions and its deletions). Each is stored as
 * a Yjs snapshot with an empty state vector (`Y.encodeSnapshot(Y.createSnapshot(ds, new
 * Map()))`). Restoring needs the deleted content still in the document: the server's Y.Doc
 * must not garbage-collect what an open run deleted (`gc: false`, or `keepRunDeletions`), or
 * the undo removes the run's text but cannot bring the original back.
 */

/** Yjs does not export the DeleteSet class by name; its stack items hold them. */
type DeleteSet = Y.UndoManager['undoStack'][number]['insertions'];

export interface SavedRunScope {
  insertions: Uint8Array;
  deletions: Uint8Array;
  /**
   * The same scope instruction by instruction (REV12, item-parts.ts `encodeParts`), or null (absent)
   * when it is not told: a scope stored before parts, or one rebuilt by Undo revert (Undo discard
   * gives each item its part back, discard-parts.ts).
   */
  items?: Uint8Array | null;
}

/** The undo manager of one run over the text of `ydoc`. */
export function runUndoManager(ydoc: Y.Doc, origin: Origin): Y.UndoManager {
  return new Y.UndoManager(docParts(ydoc).content, {
    trackedOrigins: new Set([origin]),
    captureTimeout: Number.MAX_SAFE_INTEGER,
  });
}

/** Every change the undo manager can take back, as one scope (stack items merged, item-parts.ts `wholeScope`). */
export function saveRunScope(undoManager: Y.UndoManager): SavedRunScope {
  const whole = wholeScope(undoManager.undoStack);
  return { insertions: encodeDeleteSet(whole.insertions), deletions: encodeDeleteSet(whole.deletions), items: encodeParts(undoManager) };
}

/** An undo manager for the run over `ydoc` (e.g. just loaded after a restart) holding `saved`. */
export function restoreRunScope(ydoc: Y.Doc, origin: Origin, saved: SavedRunScope): Y.UndoManager {
  const undoManager = runUndoManager(ydoc, origin);
  if (saved.items) {
    undoManager.undoStack.push(...decodeParts(saved.items));
    return undoManager;
  }
  const item = {
    insertions: Y.decodeSnapshot(saved.insertions).ds,
    deletions: Y.decodeSnapshot(saved.deletions).ds,
    meta: new Map<unknown, unknown>(),
  };
  // Y.UndoManager reads only these three fields of a stack item (StackItem is not exported).
  undoManager.undoStack.push(item as (typeof undoManager.undoStack)[number]);
  return undoManager;
}

/**
 * A `gcFilter` for a text Y.Doc loaded while runs are open: it keeps the content those runs
 * deleted, so that Discard can bring it back (`new Y.Doc({gcFilter: keepRunDeletions(open)})`).
 * Runs applied after the load need nothing: their live undo manager keeps what they delete.
 */
export function keepRunDeletions(scopes: readonly SavedRunScope[]): (item: Y.Item) => boolean {
  const deletions = scopes.map((scope) => Y.decodeSnapshot(scope.deletions).ds);
  return (item) => !deletions.some((ds) => Y.isDeleted(ds, item.id));
}

/**
 * Discard run: takes back every change in the scope as one transaction (origin: the undo
 * manager), except that nodes the run inserted and people typed in stay, with what people
 * typed (REV7, undo-keeps-typing.ts); such a block that now repeats the id of the block the
 * undo gave back gets a fresh id (a second transaction, `serverOrigin`). Returns false when
 * there was nothing to take back.
 */
export function undoRun(undoManager: Y.UndoManager): boolean {
  const items = undoManager.undoStack;
  if (items.length === 0) return false;
  const whole = wholeScope(items);
  const deletions = whole.deletions;
  const { insertions, spared } = sparePeoplesTyping(undoManager.doc, whole.insertions, deletions);
  const merged = { insertions, deletions, meta: new Map<unknown, unknown>() };
  undoManager.undoStack = [merged as (typeof items)[number]];
  undoManager.stopCapturing();
  const undone = undoManager.undo() !== null;
  // Undo discard redoes this undo and gives each item its part back (discard-parts.ts).
  keepPartsForRedo(undoManager, undone, items);
  renewRepeatedIds(undoManager.doc, spared, newBlockId, serverOrigin);
  return undone;
}

/** `scope` whose deletions also hold `more` (what Accept removed for the run, REV8), without its parts. */
export function withDeletions(scope: SavedRunScope, more: DeleteSet): SavedRunScope {
  // A run accepted whole is reverted whole (REV8): its parts are no longer needed.
  return { insertions: scope.insertions, deletions: encodeDeleteSet(Y.mergeDeleteSets([Y.decodeSnapshot(scope.deletions).ds, more])), items: null };
}

/** A DeleteSet as a scope stores it: a snapshot with an empty state vector. */
export function encodeDeleteSet(ds: DeleteSet): Uint8Array {
  return Y.encodeSnapshot(Y.createSnapshot(ds, new Map()));
}
