import * as Y from 'yjs';
import { runOrigin, type Origin } from '../../shared/model/origins.ts';
import { restoreRunScope, runUndoManager, type SavedRunScope } from '../../shared/applier/run-scope.ts';
import type { RunStore } from '../store/run-store.ts';

type DeleteSet = Y.UndoManager['undoStack'][number]['insertions'];

/**
 * The in-memory side of run scopes (shared/applier/run-scope.ts), for the live text documents that
 * Hocuspocus holds:
 *
 * - one origin object per run (`origin`), so that the run's Y.UndoManager recognises every
 *   batch of it, whichever request applies it;
 * - the run's Y.UndoManager per loaded Y.Doc (`manager`): made when the run first writes,
 *   restored from the stored scope when the document was unloaded or the server restarted
 *   in between;
 * - what garbage collection must keep (`gcFilter`): the content that open runs (claimed or in
 *   review) deleted, so that taking a run back can restore it. While loaded, a run's live undo
 *   manager keeps what it deletes (Y.UndoManager marks every item its stack deletes with
 *   `keep`, which Yjs's collector honours, in the same transaction, before collecting); the
 *   filter covers documents loaded later, from the stored scopes, and, belt and braces, the
 *   transaction of any batch being applied (`applying`);
 * - the undo managers of runs discarded while their document stays loaded (`holdForRedo`), so
 *   that Undo discard can redo them (REV9): each keeps what its undo deleted (the run's text) for
 *   as long as it lives, and is destroyed when the document unloads.
 */
export class RunScopes {
  private readonly origins = new Map<string, Origin>();
  private readonly managers = new WeakMap<Y.Doc, Map<string, Y.UndoManager>>();
  /** The deletions of open runs' stored scopes: document id → run id → DeleteSet. */
  private readonly kept = new Map<string, Map<string, DeleteSet>>();
  private readonly applying = new Set<string>();
  /** The items of a run discarded with its live manager (REV12), whose redo stack holds them. */
  private readonly discardedWith = new WeakMap<Y.UndoManager, Set<string>>();
  /** Discarded runs that can still be redone: run id → the document, its loaded Y.Doc and the manager. */
  private readonly redoable = new Map<string, { docId: string; ydoc: Y.Doc; manager: Y.UndoManager }>();
  /** Reverted runs whose revert can still be undone (REV14): run id → the document, its Y.Doc and the revert's manager. */
  private readonly reverts = new Map<string, { docId: string; ydoc: Y.Doc; manager: Y.UndoManager }>();

  constructor(private readonly runs: RunStore) {}

  /** The run's one origin object, for as long as this process knows the run. */
  origin(runId: string): Origin {
    let origin = this.origins.get(runId);
    if (!origin) {
      origin = runOrigin(runId);
      this.origins.set(runId, origin);
    }
    return origin;
  }

  /**
   * Reads the stored scopes of a document's open runs and returns the `gcFilter` for its text
   * Y.Doc (true: may be collected). Call when the document is created, before it loads.
   */
  async gcFilter(docId: string): Promise<(item: Y.Item) => boolean> {
    const open = await this.runs.openScopes(docId);
    const deletions = new Map(open.map(({ runId, scope }) => [runId, decodeDeletions(scope)]));
    if (deletions.size > 0) this.kept.set(docId, deletions);
    else this.kept.delete(docId);
    return (item) => {
      if (this.applying.has(docId)) return false;
      const kept = this.kept.get(docId);
      if (!kept) return true;
      for (const ds of kept.values()) if (overlaps(ds, item)) return false;
      return true;
    };
  }

  /**
   * The undo manager of run `runId` over the loaded `ydoc`: the one already made for this Y.Doc,
   * else one restored from the stored scope, else a new, empty one.
   */
  async manager(ydoc: Y.Doc, runId: string): Promise<Y.UndoManager> {
    const existing = this.managers.get(ydoc)?.get(runId);
    if (existing) return existing;
    const saved = await this.runs.loadScope(runId);
    const again = this.managers.get(ydoc)?.get(runId);
    if (again) return again;
    const manager = saved ? restoreRunScope(ydoc, this.origin(runId), saved) : runUndoManager(ydoc, this.origin(runId));
    manager.stopCapturing();
    let ofDoc = this.managers.get(ydoc);
    if (!ofDoc) {
      ofDoc = new Map();
      this.managers.set(ydoc, ofDoc);
    }
    ofDoc.set(runId, manager);
    return manager;
  }

  /** Runs `write` (synchronous: one batch's transaction) with collection held off for the document. */
  whileApplying<T>(docId: string, write: () => T): T {
    this.applying.add(docId);
    try {
      return write();
    } finally {
      this.applying.delete(docId);
    }
  }

  /** Notes the run's scope as stored, so that a reload of its document keeps its deletions. */
  saved(docId: string, runId: string, scope: SavedRunScope): void {
    let kept = this.kept.get(docId);
    if (!kept) {
      kept = new Map();
      this.kept.set(docId, kept);
    }
    kept.set(runId, decodeDeletions(scope));
  }

  /**
   * After Accept: the run's live manager goes, but its stored `scope` (Accept's removals
   * included) keeps what it deleted when the document loads again, while it is revertible (REV8).
   */
  retain(docId: string, runId: string, ydoc: Y.Doc, scope: SavedRunScope): void {
    this.forget(docId, runId, ydoc);
    this.saved(docId, runId, scope);
  }

  /** Notes that items `instructionIds` of a run were discarded with `manager` (its redo stack holds them). */
  discardedItems(manager: Y.UndoManager, instructionIds: Iterable<string>): void {
    let ids = this.discardedWith.get(manager);
    if (!ids) this.discardedWith.set(manager, (ids = new Set()));
    for (const id of instructionIds) ids.add(id);
  }

  /** Whether every one of `instructionIds` was discarded with `manager`, so that a redo brings all of them back. */
  redoesAll(manager: Y.UndoManager, instructionIds: Iterable<string>): boolean {
    const ids = this.discardedWith.get(manager);
    return [...instructionIds].every((id) => ids?.has(id));
  }

  /** After Discard: keeps the run's manager over `ydoc` for a redo (REV9) until the document unloads. */
  holdForRedo(docId: string, runId: string, ydoc: Y.Doc): void {
    const manager = this.managers.get(ydoc)?.get(runId);
    this.managers.get(ydoc)?.delete(runId);
    this.forget(docId, runId, ydoc);
    if (manager) this.redoable.set(runId, { docId, ydoc, manager });
  }

  /** The held manager of a discarded run over this very `ydoc`, or null (its window is closed). */
  redo(runId: string, ydoc: Y.Doc): RedoableRun | null {
    const held = this.redoable.get(runId);
    if (!held || held.ydoc !== ydoc) return null;
    return {
      manager: held.manager,
      reopened: (scope) => {
        this.redoable.delete(runId);
        let ofDoc = this.managers.get(ydoc);
        if (!ofDoc) {
          ofDoc = new Map();
          this.managers.set(ydoc, ofDoc);
        }
        ofDoc.set(runId, held.manager);
        const origin = [...held.manager.trackedOrigins].find((tracked) => tracked !== held.manager);
        if (origin) this.origins.set(runId, origin as Origin);
        this.saved(held.docId, runId, scope);
      },
    };
  }

  /** Closes the discard and revert windows of a document (it unloaded, or another run was sent for it). */
  closeRedo(docId: string): void {
    for (const held of [this.redoable, this.reverts]) {
      for (const [runId, { docId: heldDoc, manager }] of held) {
        if (heldDoc !== docId) continue;
        manager.destroy();
        held.delete(runId);
      }
    }
  }

  /**
   * After Revert: keeps the manager holding the revert over `ydoc` (revert-undo.ts) for Undo
   * revert (REV14) until the document unloads; it keeps what the revert took out meanwhile.
   */
  holdRevert(docId: string, runId: string, ydoc: Y.Doc, manager: Y.UndoManager): void {
    this.dropRevert(runId);
    this.reverts.set(runId, { docId, ydoc, manager });
  }

  /** The manager holding the revert of run `runId` over this very `ydoc`, or null (its window is closed). */
  heldRevert(runId: string, ydoc: Y.Doc): Y.UndoManager | null {
    const held = this.reverts.get(runId);
    return held && held.ydoc === ydoc ? held.manager : null;
  }

  /** Ends the window of a revert (it was undone). */
  dropRevert(runId: string): void {
    this.reverts.get(runId)?.manager.destroy();
    this.reverts.delete(runId);
  }

  /**
   * Forgets a run that is no longer open in this document (given back, failed, accepted,
   * discarded): its undo manager over `ydoc` (if any) stops listening, and the run's deletions
   * are no longer kept when the document loads again. A run given back gets a new origin and a
   * new undo manager when it is claimed again.
   */
  forget(docId: string, runId: string, ydoc: Y.Doc | null): void {
    const ofDoc = ydoc ? this.managers.get(ydoc) : undefined;
    ofDoc?.get(runId)?.destroy();
    ofDoc?.delete(runId);
    const kept = this.kept.get(docId);
    kept?.delete(runId);
    if (kept && kept.size === 0) this.kept.delete(docId);
    this.origins.delete(runId);
  }
}

export interface RedoableRun {
  manager: Y.UndoManager;
  /** Puts the manager back as the run's live one, the run being in review again with `scope`. */
  reopened(scope: SavedRunScope): void;
}

function decodeDeletions(scope: SavedRunScope): DeleteSet {
  return Y.decodeSnapshot(scope.deletions).ds;
}

/** Whether any clock of `item` is in `ds` (an item may have merged with a neighbour since). */
function overlaps(ds: DeleteSet, item: Y.Item): boolean {
  const ranges = ds.clients.get(item.id.client);
  if (!ranges) return false;
  const start = item.id.clock;
  const end = start + item.length;
  return ranges.some((range) => range.clock < end && start < range.clock + range.len);
}
