import * as Y from 'yjs';
import { difference, goneIn, holdsParts, instructionOfItem, mergeItems, stackItem } from './item-parts.ts';

/**
 * Undo discard keeps each item's part (PROTOCOL.md REV9, REV12). A Discard (of the run, or of
 * some of its items) is one undo of the run's manager, whose redo stack then holds it; Undo
 * discard redoes it. Yjs makes a fresh stack item for what a redo wrote, which names no
 * instruction, so the scope would no longer tell the items apart. Instead, each discard leaves
 * on its redo stack item the parts it took back (`keepPartsForRedo`), and Undo discard puts them
 * back after the redo (`redoKeepingParts`), each moved onto the copies the redo made (Yjs links
 * an item to its copy by `redone`).
 */

type StackItem = Y.UndoManager['undoStack'][number];
type DeleteSet = StackItem['insertions'];

const partsKey = 'discardedParts';

interface DiscardedParts {
  /** The stack items (parts) the discard took back. */
  parts: StackItem[];
  /** The item the discard added to remember what those parts had inserted (item-parts.ts `goneIn`), gone again with the redo. */
  gone: StackItem | null;
}

/**
 * Right after a discard's undo of `manager` (`undone`: it changed something): notes on its redo
 * stack item the `parts` it took back (only when they all name their instruction) and the
 * `gone` item it added, if any.
 */
export function keepPartsForRedo(manager: Y.UndoManager, undone: boolean, parts: readonly StackItem[], gone: StackItem | null = null): void {
  const top = manager.redoStack[manager.redoStack.length - 1];
  if (!undone || top === undefined || parts.length === 0) return;
  const holder = { undoStack: [...parts] } as Y.UndoManager;
  if (!holdsParts(holder)) return;
  const kept: DiscardedParts = { parts: [...parts], gone };
  top.meta.set(partsKey, kept);
}

/**
 * Redoes every discard on `manager`'s redo stack (newest first). When each of them kept its
 * parts, the manager then holds those parts again, moved onto the redo's copies, beside the
 * parts it still held, and without the items that remembered what the redone parts had
 * inserted; what the redo wrote that no part holds goes to the first part, so nothing leaves
 * the scope. Otherwise the manager keeps the stack items Yjs made (a scope without parts).
 */
export function redoKeepingParts(manager: Y.UndoManager): void {
  const before = [...manager.undoStack];
  const parts: StackItem[] = [];
  const gone = new Set<StackItem>();
  let told = true;
  while (manager.redoStack.length > 0) {
    const top = manager.redoStack[manager.redoStack.length - 1];
    const kept = top.meta.get(partsKey) as DiscardedParts | undefined;
    if (kept === undefined) told = false;
    else {
      parts.push(...kept.parts);
      if (kept.gone !== null) gone.add(kept.gone);
    }
    manager.redo();
  }
  if (!told || parts.length === 0) return;
  const ydoc = manager.doc;
  const redone = mergeItems(manager.undoStack.slice(before.length));
  const moved = parts.filter((item) => !gone.has(item) && goneIn(item) === null).map((item) => onCopies(ydoc, item));
  const held = mergeItems(moved);
  const rest = { insertions: difference(redone.insertions, held.insertions), deletions: difference(redone.deletions, held.deletions) };
  const [first, ...others] = moved;
  if (first === undefined) return;
  const withRest = stackItem(
    { insertions: Y.mergeDeleteSets([first.insertions, rest.insertions]), deletions: Y.mergeDeleteSets([first.deletions, rest.deletions]) },
    instructionOfItem(first),
  );
  manager.undoStack = [...before.filter((item) => !gone.has(item)), withRest, ...others];
}

/** `item` (a part) with every Yjs item of its insertions and deletions replaced by its latest copy, where an undo made one. */
function onCopies(ydoc: Y.Doc, item: StackItem): StackItem {
  return stackItem({ insertions: latestCopies(ydoc, item.insertions), deletions: latestCopies(ydoc, item.deletions) }, instructionOfItem(item));
}

/** The clocks of `ds`, each struct that an undo or redo restored as a copy replaced by the last copy of it (following `redone`). */
function latestCopies(ydoc: Y.Doc, ds: DeleteSet): DeleteSet {
  const out = Y.createDeleteSet();
  const add = (client: number, clock: number, len: number) => {
    let ranges = out.clients.get(client);
    if (!ranges) out.clients.set(client, (ranges = []));
    // Yjs reads only `clock` and `len` of a delete set's entries.
    ranges.push({ clock, len } as (typeof ranges)[number]);
  };
  for (const [client, ranges] of ds.clients) {
    const structs = ydoc.store.clients.get(client);
    if (structs === undefined) continue;
    const state = Y.getState(ydoc.store, client);
    for (const { clock, len } of ranges) {
      if (clock >= state) continue;
      for (let index = Y.findIndexSS(structs, clock); index < structs.length && structs[index].id.clock < clock + len; index++) {
        const struct = structs[index];
        const start = Math.max(clock, struct.id.clock);
        const end = Math.min(clock + len, struct.id.clock + struct.length);
        if (!(struct instanceof Y.Item) || struct.redone === null) {
          add(client, start, end - start);
          continue;
        }
        // A copy is as long as the struct it copies (Yjs merges no struct that has one).
        let id: Y.ID = struct.redone;
        for (let next = itemAt(ydoc, id); next !== null && next.redone !== null && next.id.clock === id.clock; next = itemAt(ydoc, id)) id = next.redone;
        add(id.client, id.clock + (start - struct.id.clock), end - start);
      }
    }
  }
  return Y.mergeDeleteSets([out]);
}

/** The struct holding clock `id` of its client, or null. */
function itemAt(ydoc: Y.Doc, id: Y.ID): Y.Item | null {
  const structs = ydoc.store.clients.get(id.client);
  if (structs === undefined || id.clock >= Y.getState(ydoc.store, id.client)) return null;
  const struct = structs[Y.findIndexSS(structs, id.clock)];
  return struct instanceof Y.Item ? struct : null;
}
