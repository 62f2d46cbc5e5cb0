import type * as Y from 'yjs';
import type { Hocuspocus } from '@hocuspocus/server';
import { anchorAfterUndo } from '../../shared/model/anchors.ts';
import { readAnnotations } from '../../shared/notes/annotations.ts';
import { setAnchor } from '../../shared/notes/annotations-writers.ts';
import { applyOps, type ApplyResult, type Change } from '../../shared/applier/applier.ts';
import { newBlockId } from '../../shared/model/block-ids.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { giveNestedIds } from '../../shared/model/nested-ids.ts';
import type { OpKind } from '../../shared/applier/op-kinds.ts';
import type { Op } from '../../shared/applier/ops.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { acceptRunText, notAppliedNote, pendingDeletes } from '../../shared/applier/pending-delete.ts';
import { saveRunScope, undoRun, withDeletions, type SavedRunScope } from '../../shared/applier/run-scope.ts';
import { tagBatch, undoFrom } from '../../shared/applier/item-parts.ts';
import { withDocument } from '../docs/with-document.ts';
import type { StoredRun } from '../store/run-store.ts';
import type { RunScopes } from './run-scopes.ts';
import type { TextWriters } from '../extensions/text-writers.ts';
import type { ClientOwners } from '../authorship/client-owners.ts';
import { agentWriters } from '../authorship/agent-writers.ts';
import { writeRestoring } from '../authorship/restored-text.ts';
import { answeredInstructions } from './answered.ts';

/**
 * What a run does to the live documents: apply a batch, take the run back (Discard, a failed
 * run, a lease that ran out), clear its marks (Accept). Each works on the Y.Docs Hocuspocus
 * holds (loaded through direct connections, which store them when closed), so connected
 * clients receive every change as it happens, and each lets the run store decide first
 * (`record`, `transition`): when the store says no, the documents are left as they were.
 */

export interface RunTextDeps {
  hocuspocus: Hocuspocus;
  scopes: RunScopes;
  writers: TextWriters;
  /** The owners of the text's client ids: each batch writes under ids claimed for the agent (WHO3). */
  owners: ClientOwners;
}

/** Called with the applied batch and the run's scope after it; false takes the batch back. */
export type RecordBatch = (changes: Change[], applied: number, scope: SavedRunScope) => Promise<boolean>;

/**
 * Applies a batch of ops for `run` to its text, as one transaction with the run's origin, and
 * records it. A refused batch changes nothing. When `record` resolves false or throws, the
 * batch is undone again and `record`'s answer (false) or error is passed on.
 */
export async function applyBatch(
  deps: RunTextDeps,
  run: StoredRun,
  ops: unknown,
  allowedOps: ReadonlySet<OpKind>,
  record: RecordBatch,
  assets: ReadonlySet<string> = new Set(),
): Promise<ApplyResult | { ok: 'unrecorded' }> {
  const { hocuspocus, scopes, owners } = deps;
  return withDocument(hocuspocus, docName(run.docId), async (ydoc) => {
    const manager = await scopes.manager(ydoc, run.id);
    const writerFor = await agentWriters(owners, ydoc, run);
    manager.stopCapturing();
    const stackSize = manager.undoStack.length;
    const applier = {
      runId: run.id,
      fence: new Set(run.items.map((item) => item.blockId)),
      instructions: new Set(run.items.map((item) => item.instructionId)),
      allowedOps,
      makeId: newBlockId,
      assets,
      writerFor,
      answered: answeredInstructions(run),
    };
    // OP12: nested blocks a peer wrote without ids since the load get the ids the agent read.
    giveNestedIds(ydoc, serverOrigin);
    const result = scopes.whileApplying(run.docId, () => applyOps(ydoc, ops as Op[], applier, scopes.origin(run.id)));
    if (!result.ok) return result;
    manager.stopCapturing();
    // REV12: the batch's stack item becomes one per instruction, each exactly its writes.
    tagBatch(manager, stackSize, result.parts);
    const scope = saveRunScope(manager);
    let recorded = false;
    try {
      recorded = await record(result.changes, result.applied, scope);
    } finally {
      // The batch is the newest stack items (capturing stopped before and after it).
      if (!recorded && manager.undoStack.length > stackSize) await writeRestoring(owners, ydoc, run.docId, () => undoFrom(manager, stackSize));
    }
    if (!recorded) return { ok: 'unrecorded' };
    scopes.saved(run.docId, run.id, scope);
    return result;
  });
}

/**
 * Takes every change of `run` back (REV2), if `transition` (the store's step out of the run's state)
 * succeeds: undoes the run's scope on the live text (restored from the store after a restart),
 * re-pins annotations whose text the undo brought back, and calls `inNotes` in the same notes
 * transaction (instruction states). Resolves false, changing nothing, when `transition` does.
 */
export async function takeBack(
  deps: RunTextDeps,
  run: StoredRun,
  transition: () => Promise<boolean>,
  inNotes: (notesYdoc: Y.Doc) => void = () => {},
  options: { redoable?: boolean } = {},
): Promise<boolean> {
  const { hocuspocus, scopes, owners } = deps;
  return withDocument(hocuspocus, docName(run.docId), (text) =>
    withDocument(hocuspocus, docName(run.docId, 'notes'), async (notes) => {
      const manager = await scopes.manager(text, run.id);
      if (!(await transition())) return false;
      // WHO4: the text the undo brings back keeps its writers.
      await writeRestoring(owners, text, run.docId, () => undoRun(manager));
      notes.transact(() => {
        repinRestored(text, notes);
        inNotes(notes);
      }, serverOrigin);
      // A discard can be undone while the document stays loaded (REV9).
      if (options.redoable) scopes.holdForRedo(run.docId, run.id, text);
      else scopes.forget(run.docId, run.id, text);
      return true;
    }),
  );
}

/**
 * Accept: if `transition` succeeds (given the notes of the changes Accept does not apply, by
 * change position), carries out the run's pending deletes but those of blocks people changed
 * meanwhile (REV6), removes the run's change marks from the text, and calls `inNotes` in one
 * notes transaction. The run's changes stay; its scope, with what the pending deletes removed,
 * is passed to `keepScope` (to store) and its deletions stay kept, for a later Revert (REV8).
 */
export async function keepRun(
  deps: RunTextDeps,
  run: StoredRun,
  transition: (notes: ReadonlyMap<number, string>) => Promise<boolean>,
  inNotes: (notesYdoc: Y.Doc) => void,
  keepScope: (scope: SavedRunScope) => Promise<unknown>,
): Promise<boolean> {
  const { hocuspocus, scopes, writers } = deps;
  return withDocument(hocuspocus, docName(run.docId), (text) =>
    withDocument(hocuspocus, docName(run.docId, 'notes'), async (notes) => {
      const manager = await scopes.manager(text, run.id);
      if (!(await transition(notAppliedNotes(text, run, writers)))) return false;
      // The same check again, on the text as it is now: a block people changed is never removed.
      // Nothing Accept removes is collected: it is part of the run's scope from now on.
      const { removed } = scopes.whileApplying(run.docId, () => acceptRunText(text, run.id, serverOrigin));
      notes.transact(() => inNotes(notes), serverOrigin);
      const scope = withDeletions(saveRunScope(manager), removed);
      scopes.retain(run.docId, run.id, text, scope);
      await keepScope(scope);
      return true;
    }),
  );
}

/** Why each delete or replacement that Accept would not apply now is not applied, by change position. */
function notAppliedNotes(text: Y.Doc, run: StoredRun, writers: TextWriters): Map<number, string> {
  const notes = new Map<number, string>();
  for (const { pending, changed, clients } of pendingDeletes(text, run.id)) {
    if (!changed) continue;
    const position = run.changes.findIndex((change) => change.op !== 'insert_after' && change.blockId === pending.blockId);
    const change = run.changes[position];
    if (change && (change.op === 'replace_block' || change.op === 'delete_block')) notes.set(position, notAppliedNote(writers.names(run.docId, clients), change.op));
  }
  return notes;
}

/**
 * REV3: points annotations at the text an undo on `text` just restored (Yjs restores deleted text as
 * new items; only this Y.Doc knows which old ones they stand for, see anchorAfterUndo).
 */
export function repinRestored(text: Y.Doc, notes: Y.Doc): void {
  for (const annotation of readAnnotations(notes).annotations) {
    const anchor = anchorAfterUndo(text, annotation.anchor);
    if (anchor) setAnchor(notes, annotation.id, { anchor, blockId: annotation.blockId }, serverOrigin);
  }
}
