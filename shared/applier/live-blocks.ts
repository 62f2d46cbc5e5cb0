import * as Y from 'yjs';
import type { Node, NodeType } from 'prosemirror-model';
import { blockHashOf, withoutPendingDeletes } from '../model/doc-content.ts';
import { docParts } from '../model/doc-layout.ts';
import { blockToMarkdown } from '../model/markdown.ts';
import { schema } from '../model/schema.ts';
import { blockIndexOf, holdsBlocksNamed, inDocumentOrder } from './block-index.ts';
import { readBlock } from './applier-write.ts';
import { pendingDeleteOf } from './pending-delete.ts';
import { readPlainParagraph } from './plain-block.ts';

/*
 * The applier's reading of the live text (applier.ts): the blocks a batch names, found by their
 * `id` attribute at any depth without projecting the document (through the document's block
 * index, block-index.ts), and each read once, through the plain paragraph shortcut where it
 * answers.
 */

/** A live block read once per batch: its type, its Markdown and its hash (`blockHash`). */
export interface ReadBlock {
  type: NodeType;
  markdown: string;
  hash: string;
  /** Its text when it is a plain paragraph (plain-block.ts), whose Markdown it is; else null. */
  plain: string | null;
  /** The block as read without its pending deletes, when not a plain paragraph (its nested ids are reused). */
  node: Node | null;
}

/**
 * The live block carrying `id` as ops find it (at any depth, not a pending delete, the first of
 * a repeated id), with its hash as an op's `expectHash` reads it (null when the schema cannot
 * build it); undefined when none carries it.
 */
export function liveBlock(ydoc: Y.Doc, id: string): { yblock: Y.XmlElement; hash: string | null } | undefined {
  const live = scanBlocks(ydoc, new Set([id]));
  const found = live.found.get(id);
  if (found === undefined) return undefined;
  return { yblock: found.yblock, hash: live.read(id)?.hash ?? null };
}

/** The blocks of the live document, at any depth, found by id without reading their content. */
export interface LiveBlocks {
  /** The first block carrying each (non-empty) id the batch names. */
  found: ReadonlyMap<string, FoundBlock>;
  /** Whether any block, at any depth, carries `id` (a pending delete or a repeated id included). */
  carries(id: string): boolean;
  /** The block carrying `id` as read (null when the schema cannot build it), or undefined when no block carries it. */
  read(id: string): ReadBlock | null | undefined;
}

export interface FoundBlock {
  yblock: Y.XmlElement;
  /** The fragment or element holding it. */
  parent: Y.XmlFragment | Y.XmlElement;
  /** The ids of the blocks holding it, the nearest first (OP12). */
  ancestors: readonly string[];
  /** Its place in document order among the blocks found (writes go from the last block to the first). */
  order: number;
}

/**
 * The blocks the batch names (`named`): for each id, the first block carrying it in document
 * order, among the fragment's children and, at any depth, the children of blocks that hold
 * blocks (lists, list items, quotes), leaving out pending deletes and every block inside one.
 * Found through the document's block index (block-index.ts), at the cost of the named ids; by
 * one walk of the text (`walkBlocks`) while a transaction of the document is open.
 */
export function scanBlocks(ydoc: Y.Doc, named: ReadonlySet<string>): LiveBlocks {
  const index = blockIndexOf(ydoc);
  if (index === null) return walkBlocks(ydoc, named);
  const blocks = new Map<string, Omit<FoundBlock, 'order'>>();
  for (const id of named) {
    if (id === '') continue;
    const block = index.carriers(id).map(foundAt).find((candidate) => candidate !== null);
    if (block !== undefined) blocks.set(id, block);
  }
  const order = new Map(inDocumentOrder([...blocks.values()].map((block) => block.yblock)).map((yblock, at) => [yblock, at]));
  const found = new Map([...blocks].map(([id, block]) => [id, { ...block, order: order.get(block.yblock) ?? 0 }]));
  return liveBlocksOf(found, (id) => index.carriers(id).length > 0);
}

/**
 * The block as ops find it, or null when it is a pending delete or inside one (OP7: gone as far
 * as ops are concerned, until the run is decided). `yblock` is in the text, where the index
 * keeps only blocks ops look at.
 */
function foundAt(yblock: Y.XmlElement): Omit<FoundBlock, 'order'> | null {
  if (pendingDeleteOf(yblock) !== null) return null;
  const parent = yblock.parent;
  if (!(parent instanceof Y.XmlFragment)) return null;
  const ancestors: string[] = [];
  for (let holder: unknown = parent; holder instanceof Y.XmlElement; holder = holder.parent) {
    if (pendingDeleteOf(holder) !== null) return null;
    const id = holder.getAttribute('id');
    if (typeof id === 'string' && id !== '') ancestors.push(id);
  }
  return { yblock, parent, ancestors };
}

/**
 * `scanBlocks` by one pass over the Yjs items of the text, descending only into blocks that
 * hold blocks and not into pending deletes: the rest of the document costs one attribute read
 * per block (and no array of it). Every id the document holds is collected only if the batch
 * needs fresh ids.
 */
export function walkBlocks(ydoc: Y.Doc, named: ReadonlySet<string>): LiveBlocks {
  const yfragment = docParts(ydoc).content;
  const found = new Map<string, FoundBlock>();
  let order = 0;
  const visit = (parent: Y.XmlFragment | Y.XmlElement, ancestors: readonly string[]) => {
    for (let item = parent._start; item !== null; item = item.right) {
      if (item.deleted || !item.countable) continue;
      const yblock = item.content instanceof Y.ContentType ? item.content.type : null;
      if (!(yblock instanceof Y.XmlElement)) continue;
      // A block a run deleted (OP7) is gone as far as ops are concerned, until the run is decided;
      // so is every block inside it.
      if (pendingDeleteOf(yblock) !== null) continue;
      const id = yblock.getAttribute('id');
      // With a duplicated id (a split not yet renamed), the first block is the one that keeps it.
      if (typeof id === 'string' && id !== '' && named.has(id) && !found.has(id)) {
        found.set(id, { yblock, parent, ancestors, order: order++ });
      }
      if (holdsBlocksNamed(yblock.nodeName)) visit(yblock, typeof id === 'string' && id !== '' ? [id, ...ancestors] : ancestors);
    }
  };
  visit(yfragment, []);
  let ids: Set<string> | null = null;
  return liveBlocksOf(found, (id) => (ids ??= idsOf(yfragment)).has(id));
}

/** The found blocks, each read at most once, when first asked. */
function liveBlocksOf(found: ReadonlyMap<string, FoundBlock>, carries: (id: string) => boolean): LiveBlocks {
  const cache = new Map<string, ReadBlock | null>();
  const read = (id: string): ReadBlock | null | undefined => {
    const block = found.get(id);
    if (block === undefined) return undefined;
    let read = cache.get(id);
    if (read === undefined) {
      read = readLiveBlock(block.yblock);
      cache.set(id, read);
    }
    return read;
  };
  return { found, carries, read };
}

/**
 * The block as `readBlock` reads it (null when unreadable), through the plain paragraph
 * shortcut where it answers. Its Markdown and hash are those of the block without the blocks
 * inside it that a run deleted pending review, as the API shows it (OP7).
 */
function readLiveBlock(yblock: Y.XmlElement): ReadBlock | null {
  const plain = readPlainParagraph(yblock);
  if (plain !== null) return { type: schema.nodes.paragraph, markdown: plain, hash: blockHashOf('paragraph', plain), plain, node: null };
  const read = readBlock(yblock);
  if (read === null) return null;
  const node = withoutPendingDeletes(read);
  const markdown = blockToMarkdown(node);
  return { type: node.type, markdown, hash: blockHashOf(node.type.name, markdown), plain: null, node };
}

/** Every id of the text, at any depth. */
function idsOf(yfragment: Y.XmlFragment): Set<string> {
  const ids = new Set<string>();
  const visit = (parent: Y.XmlFragment | Y.XmlElement) => {
    for (const yblock of parent.toArray()) {
      if (!(yblock instanceof Y.XmlElement)) continue;
      const id = yblock.getAttribute('id');
      if (typeof id === 'string') ids.add(id);
      if (holdsBlocksNamed(yblock.nodeName)) visit(yblock);
    }
  };
  visit(yfragment);
  return ids;
}
