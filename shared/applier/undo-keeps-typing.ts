import * as Y from 'yjs';
import { docParts } from '../model/doc-layout.ts';
import type { Origin } from '../model/origins.ts';
import { pendingDeleteAttr } from './pending-delete-attr.ts';

/**
 * Taking a run back never takes people's typing with it (PROTOCOL.md REV7). Undoing a run
 * deletes every item it inserted; when people typed inside a block the run inserted, their
 * characters are children of the run's Yjs nodes and would go too. So, before the undo, the
 * nodes on the way from the text root to anything people wrote are taken out of the run's
 * insertions (with their attributes): the undo then deletes the run's own characters around
 * them and leaves those nodes standing with what people wrote in them (not pending deletion).
 *
 * A top-level node the run inserted may itself be deleted by the run: a later batch replaced it
 * by another block type or deleted it (OP7), and Accept removed it, which Revert's scope holds
 * among the run's deletions (REV8). People's text in it comes back only if the node does, so
 * such a node is spared as well: out of the insertions, the undo restores it (as a copy) like
 * anything else the run deleted.
 */

type DeleteSet = Y.UndoManager['undoStack'][number]['insertions'];

/**
 * `insertions` (a run's) without the Yjs items of the run-inserted nodes that hold content
 * people wrote (there now, or deleted by the run, in `deletions`, so the undo brings it back),
 * and without those nodes' attributes. Also returns the Yjs items of those top-level blocks.
 */
export function sparePeoplesTyping(ydoc: Y.Doc, insertions: DeleteSet, deletions: DeleteSet): { insertions: DeleteSet; spared: Y.Item[] } {
  const spare: Y.Item[] = [];
  const spared: Y.Item[] = [];
  const ours = (item: Y.Item) => Y.isDeleted(insertions, item.id);
  for (const top of insertedRoots(ydoc, insertions)) {
    // A block the run deleted itself comes back with the undo (a pending delete Accept carried out).
    if ((top.deleted && !Y.isDeleted(deletions, top.id)) || !(top.content instanceof Y.ContentType)) continue;
    const path: Y.Item[] = [];
    let found = false;
    const walk = (item: Y.Item) => {
      path.push(item);
      for (let child = (item.content as Y.ContentType).type._start; child !== null; child = child.right) {
        // What the run deleted comes back with the undo: people's text among it counts.
        if (child.deleted && !Y.isDeleted(deletions, child.id)) continue;
        if (child.content instanceof Y.ContentType) walk(child);
        else if (!ours(child) && child.countable) {
          found = true;
          for (const node of path) if (!spare.includes(node)) spare.push(node, ...attributeItems(node));
        }
      }
      path.pop();
    };
    walk(top);
    if (found) spared.push(top);
  }
  return { insertions: spare.length === 0 ? insertions : subtract(insertions, spare), spared };
}

/**
 * The blocks among the clocks of `ds` (a run's insertions) that are not inside another of them:
 * top-level blocks, and nested ones the run inserted into a block it did not (a list item after
 * another, a paragraph in an item, OP12). Found in the document's store by clock: the cost
 * follows what the run inserted, not the length of the document.
 */
export function insertedRoots(ydoc: Y.Doc, ds: DeleteSet): Y.Item[] {
  const content = docParts(ydoc).content;
  const roots: Y.Item[] = [];
  for (const [client, ranges] of ds.clients) {
    const structs = ydoc.store.clients.get(client);
    const last = structs?.[structs.length - 1];
    if (structs === undefined || last === undefined) continue;
    const state = last.id.clock + last.length;
    for (const { clock, len } of ranges) {
      if (clock >= state) continue;
      for (let index = Y.findIndexSS(structs, clock); index < structs.length && structs[index].id.clock < clock + len; index++) {
        const struct = structs[index];
        if (!(struct instanceof Y.Item) || struct.parentSub !== null) continue;
        if (struct.parent === content) roots.push(struct);
        else if (struct.content instanceof Y.ContentType && struct.content.type instanceof Y.XmlElement && struct.parent instanceof Y.XmlElement) {
          const holder = struct.parent._item;
          if (holder !== null && !Y.isDeleted(ds, holder.id)) roots.push(struct);
        }
      }
    }
  }
  return roots;
}

/**
 * Gives a fresh id to each block of `spared` (after the undo) whose id another block carries: a
 * block that is not among them (a block spared by the undo may carry the id the undo gave back
 * to the block it replaced, and a block the run wrote may carry the id an item's Discard gave
 * back, REV12), or an earlier one among them. One transaction with `origin`.
 */
export function renewRepeatedIds(ydoc: Y.Doc, spared: readonly Y.Item[], makeId: () => string, origin: Origin): void {
  if (spared.length === 0) return;
  const blocks = new Set(liveBlocks(ydoc, spared));
  // Every block at any depth (OP12), in document order: a spared nested block may repeat an id too.
  const all: Y.XmlElement[] = [];
  const visit = (parent: Y.XmlFragment | Y.XmlElement) => {
    for (const yblock of parent.toArray()) {
      if (!(yblock instanceof Y.XmlElement)) continue;
      all.push(yblock);
      visit(yblock);
    }
  };
  visit(docParts(ydoc).content);
  const seen = new Set<unknown>(all.filter((yblock) => !blocks.has(yblock)).map((yblock) => yblock.getAttribute('id')));
  const repeated: Y.XmlElement[] = [];
  for (const yblock of all) {
    if (!blocks.has(yblock)) continue;
    const id = yblock.getAttribute('id');
    if (seen.has(id) || typeof id !== 'string') repeated.push(yblock);
    seen.add(id);
  }
  if (repeated.length > 0) ydoc.transact(() => repeated.forEach((yblock) => yblock.setAttribute('id', makeId())), origin);
}

/**
 * The live blocks of `roots`: each one itself, or, when the undo restored it, the copy it made
 * (Yjs links a restored item to its copy by `redone`).
 */
function liveBlocks(ydoc: Y.Doc, roots: readonly Y.Item[]): Y.XmlElement[] {
  const blocks: Y.XmlElement[] = [];
  for (const root of roots) {
    let item: Y.Item | null = root;
    while (item?.deleted && item.redone) item = itemAt(ydoc, item.redone);
    if (item && !item.deleted && item.content instanceof Y.ContentType && item.content.type instanceof Y.XmlElement) blocks.push(item.content.type);
  }
  return blocks;
}

/** The item whose first clock is `id`, or null. */
function itemAt(ydoc: Y.Doc, id: Y.ID): Y.Item | null {
  const structs = ydoc.store.clients.get(id.client);
  if (structs === undefined) return null;
  const struct = structs[Y.findIndexSS(structs, id.clock)];
  return struct instanceof Y.Item && struct.id.clock === id.clock ? struct : null;
}

/** The items of a node's attributes, but for a pending delete (the run's delete of its own block goes). */
function attributeItems(item: Y.Item): Y.Item[] {
  const items: Y.Item[] = [];
  for (const [key, last] of (item.content as Y.ContentType).type._map) {
    if (key === pendingDeleteAttr) continue;
    for (let entry: Y.Item | null = last; entry !== null; entry = entry.left) items.push(entry);
  }
  return items;
}

/** `ds` without the clocks of `items` (a new delete set; `ds` is left as it is). */
export function subtract(ds: DeleteSet, items: readonly Y.Item[]): DeleteSet {
  const out = Y.createDeleteSet();
  for (const [client, ranges] of ds.clients) {
    const holes = items
      .filter((item) => item.id.client === client)
      .map((item) => ({ clock: item.id.clock, end: item.id.clock + item.length }))
      .sort((a, b) => a.clock - b.clock);
    const kept: { clock: number; len: number }[] = [];
    for (const range of ranges) {
      let start = range.clock;
      const end = range.clock + range.len;
      for (const hole of holes) {
        if (hole.end <= start || hole.clock >= end) continue;
        if (hole.clock > start) kept.push({ clock: start, len: hole.clock - start });
        start = Math.max(start, hole.end);
      }
      if (start < end) kept.push({ clock: start, len: end - start });
    }
    // Yjs reads only `clock` and `len` of a delete set's entries.
    if (kept.length > 0) out.clients.set(client, kept as (typeof ranges)[number][]);
  }
  return out;
}
