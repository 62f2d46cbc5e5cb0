import * as Y from 'yjs';
import { Fragment, type Node } from 'prosemirror-model';
import {
  absolutePositionToRelativePosition,
  initProseMirrorDoc,
  relativePositionToAbsolutePosition,
} from 'y-prosemirror';
import { schema } from './schema.ts';
import { withBlockIds } from './block-ids.ts';
import { docParts, type AnyYType } from './doc-layout.ts';
import { maxQuoteLength } from '../protocol/limits.ts';

/**
 * Anchors: where an annotation is pinned in a document's text Y.Doc (`<id>`).
 *
 * An anchor is two Yjs relative positions, stored as JSON. `from` has assoc 0 (it sticks to the
 * first anchored character) and `to` has assoc -1 (it sticks to the last anchored character), so
 * text typed right before or right after the range stays outside it, and the range follows its
 * words through concurrent edits, offline merges and the agent's changes. When every anchored
 * character is deleted the range collapses and the annotation is orphaned, never dropped.
 *
 * Positions are ProseMirror positions of one projection of the text:
 * - without `mapping` (server, tests): a scratch copy of `textYdoc` projected with
 *   `initProseMirrorDoc`; the live document is never projected (y-prosemirror deletes content
 *   its schema cannot build, for every peer);
 * - with `mapping` (browser): the live `textYdoc` and the binding's mapping,
 *   `ySyncPluginKey.getState(state).binding.mapping`; positions are then those of
 *   `view.state.doc`. Call after the view has taken the latest Yjs change (in a plugin's state
 *   `apply` or view `update`), not from inside a Yjs observer, where the mapping may lag.
 */

/** The JSON form of a `Y.RelativePosition` (`Y.relativePositionToJSON`). */
export interface RelativePositionJSON {
  type?: { client: number; clock: number };
  tname?: string;
  item?: { client: number; clock: number };
  assoc?: number;
}

export interface Anchor {
  from: RelativePositionJSON;
  to: RelativePositionJSON;
}

/** y-prosemirror's map from Yjs types to the ProseMirror nodes built from them. */
export type ProsemirrorMapping = Map<AnyYType, Node | Node[]>;

export interface PinnedRange {
  anchor: Anchor;
  /** The anchored text as it reads now (blocks joined by `\n`), at most `maxQuoteLength`. */
  quote: string;
  /** The id of the block the pin targets (`blockIdAt`): the innermost list item containing `from`, else the top-level block. */
  blockId: string;
}

export type ResolvedAnchor =
  | { status: 'attached'; from: number; to: number; text: string }
  /**
   * `deleted`: the anchored text is gone (the range collapsed or its content was collected).
   * `not-synced`: the anchor names text this replica has not received yet; it may attach later.
   */
  | { status: 'orphaned'; reason: 'deleted' | 'not-synced' };

/** One ProseMirror reading of a text Y.Doc: the Y.Doc positions resolve in, and its mapping. */
interface Projection {
  ydoc: Y.Doc;
  yfragment: Y.XmlFragment;
  doc: Node;
  mapping: ProsemirrorMapping;
}

function project(textYdoc: Y.Doc, mapping?: ProsemirrorMapping): Projection {
  if (mapping) {
    const yfragment = docParts(textYdoc).content;
    const blocks = yfragment
      .toArray()
      .map((ytype) => mapping.get(ytype))
      .filter((node): node is Node => node !== undefined && !Array.isArray(node));
    return { ydoc: textYdoc, yfragment, doc: schema.topNodeType.create(null, Fragment.fromArray(blocks)), mapping };
  }
  const scratch = new Y.Doc({ gc: false });
  Y.applyUpdate(scratch, Y.encodeStateAsUpdate(textYdoc));
  const yfragment = docParts(scratch).content;
  const projected = initProseMirrorDoc(yfragment, schema);
  return { ydoc: scratch, yfragment, doc: projected.doc, mapping: projected.mapping as ProsemirrorMapping };
}

/**
 * Pins the range `from`..`to` of the projection (see the file comment). Throws a RangeError when
 * the range is empty or outside the document, or when its block has no id.
 */
export function anchorFromRange(textYdoc: Y.Doc, from: number, to: number, mapping?: ProsemirrorMapping): PinnedRange {
  const projection = project(textYdoc, mapping);
  const size = projection.doc.content.size;
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to > size || from >= to) {
    throw new RangeError(`Cannot anchor the range ${from}..${to} in a document of size ${size}`);
  }
  const blockId = blockIdAt(projection.doc, from);
  if (blockId === null) throw new RangeError(`The block at position ${from} has no id`);
  return {
    anchor: { from: relativeAt(projection, from, 0), to: relativeAt(projection, to, -1) },
    quote: quoteOf(textBetween(projection.doc, from, to)),
    blockId,
  };
}

/** Pins a whole block (at any depth, OP12), from just before it to just after it; null if no such block. */
export function anchorForBlock(textYdoc: Y.Doc, blockId: string, mapping?: ProsemirrorMapping): PinnedRange | null {
  const projection = project(textYdoc, mapping);
  let range: { from: number; to: number } | null = null;
  // A nested block without an id yet is found by the id the API shows for it (OP12); ids are
  // attributes, so positions are those of the projection.
  withBlockIds(projection.doc, null).descendants((block, offset) => {
    if (range !== null) return false;
    if (block.attrs.id === blockId) range = { from: offset, to: offset + block.nodeSize };
    return !block.isTextblock;
  });
  if (range === null) return null;
  const { from, to } = range;
  return {
    anchor: { from: relativeAt(projection, from, 0), to: relativeAt(projection, to, -1) },
    quote: quoteOf(textBetween(projection.doc, from, to)),
    blockId,
  };
}

/** Where `anchor` is now in the projection (see the file comment). */
export function resolveAnchor(textYdoc: Y.Doc, anchor: Anchor, mapping?: ProsemirrorMapping): ResolvedAnchor {
  return resolveIn(project(textYdoc, mapping), anchor);
}

/** `resolveAnchor` for many anchors over one projection (one scratch copy, not one each). */
export function resolveAnchors(textYdoc: Y.Doc, anchors: readonly Anchor[], mapping?: ProsemirrorMapping): ResolvedAnchor[] {
  const projection = project(textYdoc, mapping);
  return anchors.map((anchor) => resolveIn(projection, anchor));
}

function resolveIn(projection: Projection, anchor: Anchor): ResolvedAnchor {
  const fromPos = Y.createRelativePositionFromJSON(anchor.from);
  const toPos = Y.createRelativePositionFromJSON(anchor.to);
  if (!isKnown(projection.ydoc, fromPos) || !isKnown(projection.ydoc, toPos)) {
    return { status: 'orphaned', reason: 'not-synced' };
  }
  const from = relativePositionToAbsolutePosition(projection.ydoc, projection.yfragment, fromPos, projection.mapping);
  const to = relativePositionToAbsolutePosition(projection.ydoc, projection.yfragment, toPos, projection.mapping);
  if (from === null || to === null || from >= to || to > projection.doc.content.size) {
    return { status: 'orphaned', reason: 'deleted' };
  }
  return { status: 'attached', from, to, text: textBetween(projection.doc, from, to) };
}

/** False when the position names an item or a type beyond what this replica has received. */
function isKnown(ydoc: Y.Doc, pos: Y.RelativePosition): boolean {
  const ids = [pos.item, pos.type].filter((id): id is Y.ID => id !== null);
  return ids.every((id) => Y.getState(ydoc.store, id.client) > id.clock);
}

/**
 * y-prosemirror always creates positions with assoc 0 (or -1 in an empty fragment); this
 * re-creates the same place with the association the anchor needs.
 */
function relativeAt(projection: Projection, pos: number, assoc: 0 | -1): RelativePositionJSON {
  const relative = absolutePositionToRelativePosition(pos, projection.yfragment, projection.mapping);
  const absolute = Y.createAbsolutePositionFromRelativePosition(relative, projection.ydoc);
  if (absolute === null) throw new RangeError(`Position ${pos} does not resolve in the text`);
  return toPlainJSON(Y.createRelativePositionFromTypeIndex(absolute.type, absolute.index, assoc));
}

/** Plain objects only (Yjs hands out `ID` instances), so stored anchors compare and encode alike. */
function toPlainJSON(pos: Y.RelativePosition): RelativePositionJSON {
  const json: RelativePositionJSON = {};
  if (pos.type) json.type = { client: pos.type.client, clock: pos.type.clock };
  if (pos.tname) json.tname = pos.tname;
  if (pos.item) json.item = { client: pos.item.client, clock: pos.item.clock };
  json.assoc = pos.assoc;
  return json;
}

/**
 * The block a pin at `pos` targets (NOTES, OP12): the innermost list item containing `pos` (a pin
 * inside a list item targets that item), else the top-level block containing it.
 */
function blockIdAt(doc: Node, pos: number): string | null {
  let id: unknown = null;
  doc.forEach((block, offset) => {
    if (offset <= pos && pos < offset + block.nodeSize) id = block.attrs.id;
  });
  const $pos = doc.resolve(Math.min(pos + 1, doc.content.size));
  for (let depth = $pos.depth; depth > 1; depth--) {
    const node = $pos.node(depth);
    if (node.type === schema.nodes.list_item) {
      id = node.attrs.id;
      break;
    }
  }
  return typeof id === 'string' && id !== '' ? id : null;
}

function textBetween(doc: Node, from: number, to: number): string {
  return doc.textBetween(from, to, '\n', (leaf) => (leaf.type.name === 'hard_break' ? '\n' : ''));
}

/** The quote of a text: itself, or its first `maxQuoteLength - 1` characters and `…`. */
export function quoteOf(text: string): string {
  return text.length <= maxQuoteLength ? text : text.slice(0, maxQuoteLength - 1) + '…';
}

/**
 * The anchor re-pointed at text that an undo or redo on THIS replica brought back, or null when
 * neither end moved. Yjs restores undone deletions as new items and links them from the deleted
 * ones (`item.redone`) only in the Y.Doc that ran the undo: that link is never sent to other
 * peers nor kept in a scratch copy, so elsewhere the anchor stays orphaned until the replica
 * that undid (e.g. the server after Discard run) stores this new anchor with `setAnchor`.
 * Give it the live Y.Doc that ran the undo.
 */
export function anchorAfterUndo(textYdoc: Y.Doc, anchor: Anchor): Anchor | null {
  const from = followRedone(textYdoc, anchor.from);
  const to = followRedone(textYdoc, anchor.to);
  if (from === null && to === null) return null;
  return { from: from ?? anchor.from, to: to ?? anchor.to };
}

function followRedone(ydoc: Y.Doc, json: RelativePositionJSON): RelativePositionJSON | null {
  const pos = Y.createRelativePositionFromJSON(json);
  if (pos.item === null || Y.getState(ydoc.store, pos.item.client) <= pos.item.clock) return null;
  const struct = Y.getItem(ydoc.store, pos.item);
  if (!(struct instanceof Y.Item) || struct.redone === null) return null;
  const followed = Y.createAbsolutePositionFromRelativePosition(pos, ydoc, true);
  if (followed === null) return null;
  return toPlainJSON(Y.createRelativePositionFromTypeIndex(followed.type, followed.index, pos.assoc));
}
