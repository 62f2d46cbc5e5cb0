import * as Y from 'yjs';
import type { Node } from 'prosemirror-model';
import { initProseMirrorDoc, prosemirrorToYXmlFragment, yXmlFragmentToProseMirrorRootNode } from 'y-prosemirror';
import { carriesId, holdsBlocks, schema } from './schema.ts';
import { withBlockIds } from './block-ids.ts';
import { updateYFragmentKeepingUnknown, withoutUnknownBlocks } from './unknown-content.ts';
import { docParts } from './doc-layout.ts';
import { blockToMarkdown } from './markdown.ts';
import { joinedContentHash } from './hash.ts';
import type { Origin } from './origins.ts';

import type { BlockView } from '../wire/docs.ts';

export type { BlockView };

/**
 * The ProseMirror document held by a text Y.Doc, read from a scratch copy: y-prosemirror
 * deletes content its schema cannot build, so the live document is never projected. A newer
 * build's blocks are left out (VER6): this build has nothing to say about them.
 */
export function readProseMirrorDoc(ydoc: Y.Doc): Node {
  const scratch = new Y.Doc({ gc: false });
  Y.applyUpdate(scratch, Y.encodeStateAsUpdate(ydoc));
  return projectScratch(scratch);
}

/**
 * The ProseMirror document of `scratch`, a Y.Doc made only to be read (a copy of a state,
 * destroyed afterwards): y-prosemirror may delete from it what the schema cannot build; a newer
 * build's blocks are left out (VER6).
 */
export function projectScratch(scratch: Y.Doc): Node {
  return withoutUnknownBlocks(yXmlFragmentToProseMirrorRootNode(docParts(scratch).content, schema));
}

/** The hash of a block's content, independent of its id. */
export function blockHash(block: Node): string {
  return blockHashOf(block.type.name, blockToMarkdown(block));
}

/** `blockHash` of a block of type `typeName` whose Markdown (`blockToMarkdown`) is already known. */
export function blockHashOf(typeName: string, markdown: string): string {
  return joinedContentHash(typeName + '\n', markdown);
}

export function viewBlock(block: Node, parentId: string | null = null): BlockView {
  const markdown = blockToMarkdown(block);
  return {
    id: String(block.attrs.id ?? ''),
    parentId,
    type: block.type.name,
    markdown,
    hash: blockHashOf(block.type.name, markdown),
  };
}

/**
 * The blocks of a text Y.Doc as the API and agents see them, in document order: every top-level
 * block, and inside lists and quotes every list item and nested block (OP12), each with its
 * parent's id; without pending deletes (OP7). A nested block written before nested blocks had
 * ids reads with the id the server gives it when it first writes there (`derivedBlockId`).
 */
export function readBlocks(ydoc: Y.Doc): BlockView[] {
  return viewBlocks(withoutPendingDeletes(readProseMirrorDoc(ydoc)));
}

/** The blocks of `doc`, whose pending deletes are already left out (`withoutPendingDeletes`). */
export function viewBlocks(doc: Node): BlockView[] {
  const blocks: BlockView[] = [];
  const withIds = withBlockIds(doc, null);
  const visit = (node: Node, parentId: string | null) => {
    node.forEach((child) => {
      if (!carriesId(child.type)) return;
      const view = viewBlock(child, parentId);
      blocks.push(view);
      if (holdsBlocks(child.type)) visit(child, view.id);
    });
  };
  visit(withIds, null);
  return blocks;
}

/**
 * `node` without the blocks, at any depth, that a run has deleted pending review (their
 * `deleting` attribute is set, see pending-delete.ts): what the text is once the run is
 * accepted, and what the API, Markdown export, hashes and agents read, as they did when a
 * delete removed the block. `node` itself stays, marked or not. Subtrees without such a block
 * are returned as they are.
 */
export function withoutPendingDeletes(node: Node): Node {
  if (node.type !== schema.topNodeType && !holdsBlocks(node.type)) return node;
  const kept: Node[] = [];
  let changed = false;
  node.forEach((child) => {
    if (child.attrs.deleting) {
      changed = true;
      return;
    }
    const inner = withoutPendingDeletes(child);
    changed ||= inner !== child;
    kept.push(inner);
  });
  return changed ? node.type.create(node.attrs, kept, node.marks) : node;
}

/** Fills an empty text Y.Doc with `doc`, as one transaction with `origin`. */
export function writeInitialContent(ydoc: Y.Doc, doc: Node, origin: Origin): void {
  ydoc.transact(() => {
    prosemirrorToYXmlFragment(doc, docParts(ydoc).content);
  }, origin);
}

/**
 * Changes the text of `ydoc` through ProseMirror: `change` receives the current document and
 * returns the new one, built from it (unchanged nodes shared, as a Transaction's doc does).
 * The difference is written as one transaction with `origin`, with the smallest change
 * y-prosemirror can find: nodes are matched by identity first, then diffed in place, so
 * anchors and concurrent typing inside kept blocks survive.
 *
 * It reads the live fragment the way an editor binding does, which drops content that the
 * schema cannot build; validate on a scratch copy (readProseMirrorDoc) before calling.
 */
export function changeContent(ydoc: Y.Doc, change: (doc: Node) => Node, origin: Origin): void {
  const yfragment = docParts(ydoc).content;
  ydoc.transact(() => {
    const { doc, meta } = initProseMirrorDoc(yfragment, schema);
    updateYFragmentKeepingUnknown(ydoc, yfragment, change(doc), meta);
  }, origin);
}
