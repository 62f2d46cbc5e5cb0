import * as Y from 'yjs';
import * as encoding from 'lib0/encoding';
import * as decoding from 'lib0/decoding';

/**
 * Each item's own part of a run's undo scope (PROTOCOL.md REV12): the Yjs items that the writes
 * answering one instruction inserted and deleted, kept as one stack item of the run's
 * Y.UndoManager per instruction (its `meta` names the instruction). Two instructions of one
 * run that change the same block each hold exactly their own characters, nodes, attributes and
 * marks there, so that discarding one takes back its changes only, whatever the other did.
 *
 * The applier records the parts while it writes a batch (`PartRecorder`, inside the batch's one
 * transaction); the batch's stack item is then replaced by the parts (`tagBatch`). The store
 * keeps them beside the whole scope (`encodeParts`), so they hold across a restart.
 */

type DeleteSet = Y.UndoManager['undoStack'][number]['insertions'];
type StackItem = Y.UndoManager['undoStack'][number];

export interface ScopePart {
  insertions: DeleteSet;
  deletions: DeleteSet;
}

const instructionKey = 'instructionId';
const goneKey = 'gone';

/**
 * A stack item holding `part`, naming instruction `instructionId` (null: untold). With `gone`, an
 * item that holds nothing to undo but remembers what discarded items had inserted (`goneOf`).
 */
export function stackItem(part: ScopePart, instructionId: string | null = null, gone?: DeleteSet): StackItem {
  const meta = new Map<unknown, unknown>();
  if (instructionId !== null) meta.set(instructionKey, instructionId);
  if (gone !== undefined) meta.set(goneKey, gone);
  // Y.UndoManager reads only these three fields of a stack item (StackItem is not exported).
  return { insertions: part.insertions, deletions: part.deletions, meta } as StackItem;
}

/** The instruction a stack item holds the part of, or null when it is not told (a scope stored before parts, a redo). */
export function instructionOfItem(item: StackItem): string | null {
  const id: unknown = item.meta.get(instructionKey);
  return typeof id === 'string' ? id : null;
}

/** What the discarded items that `item` remembers had inserted, or null for an item of a part. */
export function goneIn(item: StackItem): DeleteSet | null {
  return (item.meta.get(goneKey) as DeleteSet | undefined) ?? null;
}

/**
 * What discarded items of the run had inserted: deleted by their Discard, or before it by
 * another item that rewrote them. An item's Discard does not bring any of it back.
 */
export function goneOf(items: readonly StackItem[]): DeleteSet {
  return Y.mergeDeleteSets(items.map((item) => goneIn(item) ?? Y.createDeleteSet()));
}

/**
 * Everything the stack items `items` of a run can take back, as one part: their insertions, and
 * their deletions but for what discarded items had inserted (`goneOf`). Accept of one item may
 * have removed a block another item wrote and that item was discarded after; Discard run and
 * Revert do not bring it back either.
 */
export function wholeScope(items: readonly StackItem[]): ScopePart {
  const merged = mergeItems(items);
  const gone = goneOf(items);
  return gone.clients.size === 0 ? merged : { insertions: merged.insertions, deletions: difference(merged.deletions, gone) };
}

/** Whether every stack item of `manager` names its instruction (and there is at least one). */
export function holdsParts(manager: Y.UndoManager): boolean {
  return manager.undoStack.length > 0 && manager.undoStack.every((item) => instructionOfItem(item) !== null);
}

/** The stack items of `items` merged into one part. */
export function mergeItems(items: readonly StackItem[]): ScopePart {
  return {
    insertions: Y.mergeDeleteSets(items.map((item) => item.insertions)),
    deletions: Y.mergeDeleteSets(items.map((item) => item.deletions)),
  };
}

/**
 * Records, during one transaction of `ydoc`, what each instruction's writes inserted (the
 * clocks the writing client used) and deleted (what the transaction's delete set gained).
 */
export class PartRecorder {
  private readonly parts = new Map<string, { insertions: DeleteSet; deletions: DeleteSet }>();

  constructor(private readonly ydoc: Y.Doc) {}

  /** Runs `write` (inside the transaction, writing as the client `ydoc.clientID` is now) as instruction `instructionId`'s. */
  during<T>(instructionId: string, write: () => T): T {
    const transaction = this.ydoc._transaction;
    if (transaction === null) throw new Error('PartRecorder.during runs inside a transaction');
    const client = this.ydoc.clientID;
    const start = Y.getState(this.ydoc.store, client);
    const lengths = new Map([...transaction.deleteSet.clients].map(([id, ranges]) => [id, ranges.length]));
    try {
      return write();
    } finally {
      let part = this.parts.get(instructionId);
      if (!part) this.parts.set(instructionId, (part = { insertions: Y.createDeleteSet(), deletions: Y.createDeleteSet() }));
      const end = Y.getState(this.ydoc.store, client);
      if (end > start) addRange(part.insertions, client, start, end - start);
      for (const [id, ranges] of transaction.deleteSet.clients) {
        for (let index = lengths.get(id) ?? 0; index < ranges.length; index++) addRange(part.deletions, id, ranges[index].clock, ranges[index].len);
      }
    }
  }

  /** Every instruction's part so far (sorted and merged delete sets). */
  result(): Map<string, ScopePart> {
    return new Map([...this.parts].map(([id, part]) => [id, { insertions: Y.mergeDeleteSets([part.insertions]), deletions: Y.mergeDeleteSets([part.deletions]) }]));
  }
}

/**
 * Replaces the stack items of `manager` from index `from` on (one batch, capturing stopped
 * before and after it) by one stack item per instruction of `parts`. Anything of those items
 * no part holds (none, as the applier writes) goes to the first part, so nothing of the batch
 * leaves the scope. A manager whose older items do not name their instruction keeps one merged
 * item for the batch, as before parts.
 */
export function tagBatch(manager: Y.UndoManager, from: number, parts: ReadonlyMap<string, ScopePart>): void {
  const added = manager.undoStack.slice(from);
  if (added.length === 0 || parts.size === 0) return;
  if (manager.undoStack.slice(0, from).some((item) => instructionOfItem(item) === null)) return;
  const whole = mergeItems(added);
  const entries = [...parts];
  const held = mergeItems(entries.map(([, part]) => stackItem(part)));
  const rest = { insertions: difference(whole.insertions, held.insertions), deletions: difference(whole.deletions, held.deletions) };
  const items = entries.map(([instructionId, part], index) =>
    stackItem(index === 0 ? { insertions: Y.mergeDeleteSets([part.insertions, rest.insertions]), deletions: Y.mergeDeleteSets([part.deletions, rest.deletions]) } : part, instructionId),
  );
  manager.undoStack = [...manager.undoStack.slice(0, from), ...items];
}

/** Undoes the stack items from index `from` on (a batch the store did not record) as one undo. */
export function undoFrom(manager: Y.UndoManager, from: number): void {
  if (manager.undoStack.length <= from) return;
  const added = mergeItems(manager.undoStack.slice(from));
  manager.undoStack = [...manager.undoStack.slice(0, from), stackItem(added)];
  manager.undo();
}

/** The parts of a manager whose items all name their instruction, as the store keeps them; null otherwise. */
export function encodeParts(manager: Y.UndoManager): Uint8Array | null {
  if (!holdsParts(manager)) return null;
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, manager.undoStack.length);
  for (const item of manager.undoStack) {
    encoding.writeVarString(encoder, instructionOfItem(item) as string);
    encoding.writeVarUint8Array(encoder, encodeDs(item.insertions));
    encoding.writeVarUint8Array(encoder, encodeDs(item.deletions));
    const gone = goneIn(item);
    encoding.writeVarUint(encoder, gone === null ? 0 : 1);
    if (gone !== null) encoding.writeVarUint8Array(encoder, encodeDs(gone));
  }
  return encoding.toUint8Array(encoder);
}

/** The stack items `encodeParts` wrote. */
export function decodeParts(bytes: Uint8Array): StackItem[] {
  const decoder = decoding.createDecoder(bytes);
  const count = decoding.readVarUint(decoder);
  const items: StackItem[] = [];
  for (let index = 0; index < count; index++) {
    const instructionId = decoding.readVarString(decoder);
    const insertions = Y.decodeSnapshot(decoding.readVarUint8Array(decoder)).ds;
    const deletions = Y.decodeSnapshot(decoding.readVarUint8Array(decoder)).ds;
    const gone = decoding.readVarUint(decoder) === 1 ? Y.decodeSnapshot(decoding.readVarUint8Array(decoder)).ds : undefined;
    items.push(stackItem({ insertions, deletions }, instructionId, gone));
  }
  return items;
}

function encodeDs(ds: DeleteSet): Uint8Array {
  return Y.encodeSnapshot(Y.createSnapshot(ds, new Map()));
}

function addRange(ds: DeleteSet, client: number, clock: number, len: number): void {
  let ranges = ds.clients.get(client);
  if (!ranges) ds.clients.set(client, (ranges = []));
  // Yjs reads only `clock` and `len` of a delete set's entries.
  ranges.push({ clock, len } as (typeof ranges)[number]);
}

/** The clocks of `a` that are not in `b` (both sorted and merged). */
export function difference(a: DeleteSet, b: DeleteSet): DeleteSet {
  const out = Y.createDeleteSet();
  for (const [client, ranges] of a.clients) {
    const holes = b.clients.get(client) ?? [];
    for (const range of ranges) {
      let start = range.clock;
      const end = range.clock + range.len;
      for (const hole of holes) {
        const holeEnd = hole.clock + hole.len;
        if (holeEnd <= start || hole.clock >= end) continue;
        if (hole.clock > start) addRange(out, client, start, hole.clock - start);
        start = Math.max(start, holeEnd);
      }
      if (start < end) addRange(out, client, start, end - start);
    }
  }
  return out;
}

/**
 * `item` (a part) with the copies an undo just made of its items: the undo of another part
 * (`restored`, its deletions) brought back text this part had inserted and that part had
 * rewritten; the copies (Yjs links an item to its copy by `redone`) are this part's from now on,
 * so that its own Discard takes them back too.
 */
export function withCopies(ydoc: Y.Doc, item: StackItem, restored: DeleteSet): StackItem {
  const copies = Y.createDeleteSet();
  for (const [client, ranges] of restored.clients) {
    const structs = ydoc.store.clients.get(client);
    if (structs === undefined) continue;
    for (const { clock, len } of ranges) {
      const state = Y.getState(ydoc.store, client);
      if (clock >= state) continue;
      for (let index = Y.findIndexSS(structs, clock); index < structs.length && structs[index].id.clock < clock + len; index++) {
        let struct: Y.Item | Y.GC | null = structs[index];
        if (!(struct instanceof Y.Item) || struct.redone === null || !Y.isDeleted(item.insertions, struct.id)) continue;
        while (struct instanceof Y.Item && struct.redone !== null) struct = itemAt(ydoc, struct.redone);
        if (struct instanceof Y.Item) addRange(copies, struct.id.client, struct.id.clock, struct.length);
      }
    }
  }
  if (copies.clients.size === 0) return item;
  return stackItem({ insertions: Y.mergeDeleteSets([item.insertions, copies]), deletions: item.deletions }, instructionOfItem(item), goneIn(item) ?? undefined);
}

/** The struct holding clock `id` of its client, or null. */
function itemAt(ydoc: Y.Doc, id: Y.ID): Y.Item | null {
  const structs = ydoc.store.clients.get(id.client);
  if (structs === undefined || id.clock >= Y.getState(ydoc.store, id.client)) return null;
  const struct = structs[Y.findIndexSS(structs, id.clock)];
  return struct instanceof Y.Item ? struct : null;
}
