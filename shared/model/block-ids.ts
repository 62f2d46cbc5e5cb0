import type { Node } from 'prosemirror-model';
import { Plugin, PluginKey, type Transaction, type EditorState } from 'prosemirror-state';
import { randomId } from './ids.ts';
import { contentHash } from './hash.ts';
import { carriesId, holdsBlocks } from './schema.ts';
import { unknownBlockName } from './unknown-content.ts';

/**
 * Stable block ids (DOC2, OP12). Every block, at any depth (a list, each of its items, every
 * block inside an item or a quote), carries a unique `id` attribute, created once and renewed
 * when a split or a paste would duplicate one. Agents and the applier address blocks by this id,
 * never by position.
 */

export const newBlockId = (): string => 'b' + randomId(9);

/**
 * The id a nested block lacking one gets (OP12): derived from its parent's id and its place
 * there, so that every peer (each editor, the server reading or migrating a document written
 * before nested blocks had ids) that gives ids to the same text gives the same ones, and they
 * never fight over them. Shaped like `newBlockId`.
 */
export function derivedBlockId(parentId: string, index: number): string {
  return 'b' + contentHash(`${parentId}/${index}`).slice(0, 9);
}

/** A node to give an id: where it is, and what it needs. */
interface Needing {
  pos: number;
  /** Its parent's position, -1 for the document. */
  parentPos: number;
  /** Its parent's id, when the node has none of its own and the parent has one. */
  parentId: string | null;
  index: number;
}

/**
 * The nodes that carry ids (every block and list item, descending only into nodes that hold
 * blocks) in document order, with their positions, parents and their parents' positions (-1 for
 * the document). One pass over the tree: nothing is resolved by position, which costs a walk of
 * the parent's children each time.
 */
function walkIds(doc: Node, visit: (node: Node, pos: number, parent: Node, index: number, parentPos: number) => void): void {
  const walk = (parent: Node, parentPos: number): void => {
    const contentStart = parentPos + 1;
    parent.forEach((node, offset, index) => {
      // A newer build's block is held whole (VER6): giving it an id would rewrite its element.
      if (node.type.name === unknownBlockName) return;
      const pos = contentStart + offset;
      if (carriesId(node.type)) visit(node, pos, parent, index, parentPos);
      if (holdsBlocks(node.type)) walk(node, pos);
    });
  };
  walk(doc, -1);
}

function needingIds(doc: Node): Needing[] {
  const seen = new Set<string>();
  const needing: Needing[] = [];
  walkIds(doc, (node, pos, parent, index, parentPos) => {
    const id = node.attrs.id;
    if (typeof id === 'string' && id !== '' && !seen.has(id)) {
      seen.add(id);
      return;
    }
    const parentId = parent === doc || typeof id === 'string' ? null : (parent.attrs.id as unknown);
    needing.push({ pos, parentPos, parentId: typeof parentId === 'string' && parentId !== '' ? parentId : null, index });
  });
  return needing;
}

/**
 * Positions of blocks (at any depth) whose id is missing or repeats an earlier block's id. The
 * first block to carry an id keeps it, so the text a person stays in keeps its identity on a split.
 */
export function blocksNeedingIds(doc: Node): number[] {
  return needingIds(doc).map(({ pos }) => pos);
}

/**
 * The id for each position of `blocksNeedingIds`, in document order: a nested block without an
 * id whose parent has one gets `derivedBlockId` (when no block holds that id yet), every other
 * one `makeId()` (none when `makeId` is null). A parent given an id here passes it on to its children.
 */
function plannedIds(doc: Node, makeId: (() => string) | null): Map<number, string> {
  const taken = new Set<string>();
  walkIds(doc, (node) => {
    if (typeof node.attrs.id === 'string' && node.attrs.id !== '') taken.add(node.attrs.id);
  });
  const planned = new Map<number, string>();
  const given = new Map<number, string>();
  for (const { pos, parentPos, parentId, index } of needingIds(doc)) {
    const parent = parentId ?? given.get(parentPos) ?? null;
    let id = parent === null ? null : derivedBlockId(parent, index);
    if (id === null || taken.has(id)) {
      if (makeId === null) continue;
      id = makeId();
    }
    taken.add(id);
    planned.set(pos, id);
    given.set(pos, id);
  }
  return planned;
}

/** Gives every block that needs one an id; returns `tr` for chaining. */
export function assignBlockIds(tr: Transaction, makeId: () => string = newBlockId): Transaction {
  for (const [pos, id] of plannedIds(tr.doc, makeId)) {
    const block = tr.doc.nodeAt(pos);
    if (block) tr.setNodeMarkup(pos, undefined, { ...block.attrs, id });
  }
  return tr;
}

/**
 * A copy of `doc` in which every block, at any depth, has a unique id. With `makeId` null, only
 * the nested blocks that would get a derived id get one, the rest is left as it is (how readers
 * see a document written before nested blocks had ids).
 */
export function withBlockIds(doc: Node, makeId: (() => string) | null = newBlockId): Node {
  const planned = plannedIds(doc, makeId);
  if (planned.size === 0) return doc;
  const rebuild = (node: Node, pos: number): Node => {
    const id = planned.get(pos);
    if (!holdsBlocks(node.type) && id === undefined) return node;
    const children: Node[] = [];
    node.forEach((child, offset) => children.push(child.isText ? child : rebuild(child, pos + 1 + offset)));
    const attrs = id === undefined ? node.attrs : { ...node.attrs, id };
    return node.type.create(attrs, children, node.marks);
  };
  const children: Node[] = [];
  doc.forEach((block, offset) => children.push(rebuild(block, offset)));
  return doc.copy(doc.type.schema.nodes.doc.create(null, children).content);
}

export const blockIdsKey = new PluginKey('tandem-block-ids');

/**
 * Keeps block ids unique after every change, local or remote. The new ids belong to the step that
 * needed them (EDIT1): after a person's change (a split, a paste) they join that change's undo step, so
 * that undo takes back the split and its id at once; after a change that is not the person's
 * own (from Yjs, or marked `addToHistory: false`) they stay out of the person's history.
 */
export function blockIdsPlugin(makeId: () => string = newBlockId): Plugin {
  return new Plugin({
    key: blockIdsKey,
    appendTransaction(transactions: readonly Transaction[], _old: EditorState, state: EditorState) {
      if (!transactions.some((tr) => tr.docChanged)) return null;
      if (blocksNeedingIds(state.doc).length === 0) return null;
      const tr = assignBlockIds(state.tr, makeId);
      return transactions.some(isOwnChange) ? tr : tr.setMeta('addToHistory', false);
    },
  });
}

/**
 * Whether `tr` is a change of the person's own that belongs in their history. y-prosemirror
 * writes a batch of transactions (one dispatch and those appended to it) to Yjs as one change,
 * kept out of the undo history when the last of them says `addToHistory: false`: an appended
 * transaction must say so only when every change before it did.
 */
export const isOwnChange = (tr: Transaction): boolean => tr.docChanged && tr.getMeta('addToHistory') !== false;
