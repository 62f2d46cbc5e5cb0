import type { Node } from 'prosemirror-model';
import { Plugin, PluginKey, type Transaction, type EditorState } from 'prosemirror-state';
import { randomId } from './ids.ts';

/**
 * Stable block ids (DOC2). Every top-level block carries a unique `id` attribute, created once and
 * renewed when a split or a paste would duplicate one. Agents and the applier address blocks
 * by this id, never by position.
 */

export const newBlockId = (): string => 'b' + randomId(9);

/**
 * Positions of top-level blocks whose id is missing or repeats an earlier block's id. The first
 * block to carry an id keeps it, so the text a person stays in keeps its identity on a split.
 */
export function blocksNeedingIds(doc: Node): number[] {
  const seen = new Set<string>();
  const positions: number[] = [];
  doc.forEach((block, offset) => {
    const id = block.attrs.id;
    if (typeof id !== 'string' || id === '' || seen.has(id)) positions.push(offset);
    else seen.add(id);
  });
  return positions;
}

/** Gives every top-level block that needs one a fresh id; returns `tr` for chaining. */
export function assignBlockIds(tr: Transaction, makeId: () => string = newBlockId): Transaction {
  for (const pos of blocksNeedingIds(tr.doc)) {
    const block = tr.doc.nodeAt(pos);
    if (block) tr.setNodeMarkup(pos, undefined, { ...block.attrs, id: makeId() });
  }
  return tr;
}

/** A copy of `doc` in which every top-level block has a unique id. */
export function withBlockIds(doc: Node, makeId: () => string = newBlockId): Node {
  const positions = new Set(blocksNeedingIds(doc));
  if (positions.size === 0) return doc;
  const blocks: Node[] = [];
  doc.forEach((block, offset) => {
    blocks.push(positions.has(offset) ? block.type.create({ ...block.attrs, id: makeId() }, block.content, block.marks) : block);
  });
  return doc.copy(doc.type.schema.nodes.doc.create(null, blocks).content);
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
