import * as Y from 'yjs';
import { docParts } from '../model/doc-layout.ts';
import { holdsBlocks, schema } from '../model/schema.ts';

/*
 * Where the blocks of a document's text are, by id, so that a batch of ops costs the blocks it
 * names rather than the document (live-blocks.ts). The index holds every Y.XmlElement carrying
 * an `id` among the fragment's children and, at any depth, among the children of blocks that
 * hold blocks (lists, list items, quotes: `holdsBlocks`), the places ops look for blocks
 * (OP12). It is built by one walk the first time a Y.Doc is asked, then kept up to date after
 * every transaction from the items it created and deleted: an inserted element is added with
 * the blocks inside it, a deleted one is removed with them, and an element whose `id` changes
 * moves to its new id.
 * A lookup checks what it returns against the elements themselves (still in the text, still
 * carrying the id), so an entry the observer has not yet dropped is never answered.
 */

/** The blocks carrying one id, as the index answers. */
export interface BlockIndex {
  /**
   * The elements in the text carrying `id` (a non-empty string), in document order (a block
   * before the blocks inside it); pending deletes and the blocks inside them included.
   */
  carriers(id: string): Y.XmlElement[];
}

const indexes = new WeakMap<Y.Doc, ObservedIndex>();

/**
 * The block index of `ydoc`'s text, built at the first call. Null while a transaction of
 * `ydoc` is open or its observers are still running (the index may not know yet what that
 * transaction wrote): the caller walks the text instead.
 */
export function blockIndexOf(ydoc: Y.Doc): BlockIndex | null {
  if (ydoc._transaction !== null || ydoc._transactionCleanups.length > 0) return null;
  let index = indexes.get(ydoc);
  if (index === undefined) {
    index = new ObservedIndex(docParts(ydoc).content);
    indexes.set(ydoc, index);
  }
  return index;
}

/** Whether ops look for blocks among the children of a `nodeName` element (OP12). */
export function holdsBlocksNamed(nodeName: string): boolean {
  const type = schema.nodes[nodeName];
  return type !== undefined && holdsBlocks(type);
}

/** The fragment or element holding `type` (null once it is not integrated, or held by another kind of type). */
function parentOf(type: Y.XmlFragment): Y.XmlFragment | null {
  const parent = type._item?.parent;
  return parent instanceof Y.XmlFragment ? parent : null;
}

/** The child elements of `parent`, deleted ones included when `withDeleted`. */
function* childElements(parent: Y.XmlFragment, withDeleted: boolean): Generator<Y.XmlElement> {
  for (let item = parent._start; item !== null; item = item.right) {
    if (item.deleted && !withDeleted) continue;
    if (item.content instanceof Y.ContentType && item.content.type instanceof Y.XmlElement) yield item.content.type;
  }
}

class ObservedIndex implements BlockIndex {
  private readonly byId = new Map<string, Set<Y.XmlElement>>();
  private readonly idOf = new Map<Y.XmlElement, string>();

  constructor(private readonly fragment: Y.XmlFragment) {
    for (const child of childElements(fragment, false)) this.addTree(child);
    fragment.doc?.on('afterTransaction', (transaction: Y.Transaction) => this.update(transaction));
  }

  carriers(id: string): Y.XmlElement[] {
    const entries = this.byId.get(id);
    if (entries === undefined) return [];
    const live: Y.XmlElement[] = [];
    for (const yblock of entries) {
      if (this.inText(yblock) && yblock.getAttribute('id') === id) live.push(yblock);
      else this.forget(yblock);
    }
    return inDocumentOrder(live);
  }

  /**
   * Follows one transaction from the items it created and deleted (its own size, whatever the
   * document's): a deep observer would not do, as Yjs works out each event's path, counting
   * every block before the changed one.
   */
  private update(transaction: Y.Transaction): void {
    transaction.afterState.forEach((after, client) => {
      const before = transaction.beforeState.get(client) ?? 0;
      const structs = transaction.doc.store.clients.get(client);
      if (after <= before || structs === undefined) return;
      for (let i = Y.findIndexSS(structs, before); i < structs.length && structs[i].id.clock < after; i++) {
        const struct = structs[i];
        if (struct instanceof Y.Item && !struct.deleted) this.integrated(struct);
      }
    });
    Y.iterateDeletedStructs(transaction, transaction.deleteSet, (struct) => {
      if (struct instanceof Y.Item) this.deleted(struct);
    });
  }

  /** A new item: an element (with the blocks inside it) or an `id` attribute. */
  private integrated(item: Y.Item): void {
    const parent = item.parent;
    if (!(parent instanceof Y.XmlFragment)) return;
    if (item.parentSub === null) {
      if (item.content instanceof Y.ContentType && item.content.type instanceof Y.XmlElement && this.looksInside(parent)) this.addTree(item.content.type);
    } else if (item.parentSub === 'id') this.noted(parent);
  }

  /** A deleted item: an element (with the blocks inside it) or an `id` attribute taken off. */
  private deleted(item: Y.Item): void {
    const parent = item.parent;
    if (!(parent instanceof Y.XmlFragment)) return;
    if (item.parentSub === null) {
      if (item.content instanceof Y.ContentType && item.content.type instanceof Y.XmlElement) this.dropTree(item.content.type);
    } else if (item.parentSub === 'id') this.noted(parent);
  }

  /** Files an element whose `id` changed under its id now, if ops look where it is. */
  private noted(yblock: Y.XmlFragment): void {
    if (!(yblock instanceof Y.XmlElement)) return;
    const holder = parentOf(yblock);
    if (yblock._item?.deleted === false && holder !== null && this.looksInside(holder)) this.note(yblock);
  }

  /** Whether ops look among `type`'s children: the fragment, or a block holding blocks inside such a place. */
  private looksInside(type: Y.XmlFragment): boolean {
    if (type === this.fragment) return true;
    if (!(type instanceof Y.XmlElement) || !holdsBlocksNamed(type.nodeName)) return false;
    const parent = parentOf(type);
    return parent !== null && this.looksInside(parent);
  }

  /** Whether `yblock` and every type holding it are still in the text. */
  private inText(yblock: Y.XmlElement): boolean {
    let type: Y.XmlFragment = yblock;
    while (type !== this.fragment) {
      const item = type._item;
      if (item === null || item.deleted || !(item.parent instanceof Y.XmlFragment)) return false;
      type = item.parent;
    }
    return true;
  }

  private addTree(yblock: Y.XmlElement): void {
    this.note(yblock);
    if (holdsBlocksNamed(yblock.nodeName)) for (const child of childElements(yblock, false)) this.addTree(child);
  }

  private dropTree(yblock: Y.XmlElement): void {
    this.forget(yblock);
    if (holdsBlocksNamed(yblock.nodeName)) for (const child of childElements(yblock, true)) this.dropTree(child);
  }

  /** Files `yblock` under its current id (none when it has no non-empty string id). */
  private note(yblock: Y.XmlElement): void {
    const id = yblock.getAttribute('id');
    const current = typeof id === 'string' && id !== '' ? id : undefined;
    if (this.idOf.get(yblock) === current) return;
    this.forget(yblock);
    if (current === undefined) return;
    this.idOf.set(yblock, current);
    let entries = this.byId.get(current);
    if (entries === undefined) this.byId.set(current, (entries = new Set()));
    entries.add(yblock);
  }

  private forget(yblock: Y.XmlElement): void {
    const id = this.idOf.get(yblock);
    if (id === undefined) return;
    this.idOf.delete(yblock);
    const entries = this.byId.get(id);
    entries?.delete(yblock);
    if (entries?.size === 0) this.byId.delete(id);
  }
}

/**
 * `yblocks` (elements in one text) in document order, a block before the blocks inside it. Each
 * parent involved is walked once, up to the last of its children involved: nothing is read but
 * the Yjs items' links.
 */
export function inDocumentOrder(yblocks: readonly Y.XmlElement[]): Y.XmlElement[] {
  if (yblocks.length < 2) return [...yblocks];
  const chains = new Map<Y.XmlElement, Y.Item[]>();
  const wanted = new Map<Y.XmlFragment, Set<Y.Item>>();
  for (const yblock of yblocks) {
    const chain: Y.Item[] = [];
    for (let item = yblock._item; item !== null && item.parent instanceof Y.XmlFragment; item = item.parent._item) {
      chain.unshift(item);
      const parent = item.parent;
      let items = wanted.get(parent);
      if (items === undefined) wanted.set(parent, (items = new Set()));
      items.add(item);
    }
    chains.set(yblock, chain);
  }
  const position = new Map<Y.Item, number>();
  for (const [parent, items] of wanted) {
    let left = items.size;
    let at = 0;
    for (let item = parent._start; item !== null && left > 0; item = item.right, at++) {
      if (items.has(item)) {
        position.set(item, at);
        left--;
      }
    }
  }
  const chainOf = (yblock: Y.XmlElement): Y.Item[] => chains.get(yblock) ?? [];
  return [...yblocks].sort((a, b) => {
    const ca = chainOf(a);
    const cb = chainOf(b);
    for (let level = 0; level < ca.length && level < cb.length; level++) {
      if (ca[level] !== cb[level]) return (position.get(ca[level]) ?? 0) - (position.get(cb[level]) ?? 0);
    }
    return ca.length - cb.length;
  });
}
