import * as Y from 'yjs';
import type { Node } from 'prosemirror-model';
import { prosemirrorToYXmlFragment, updateYFragment, yXmlFragmentToProseMirrorRootNode } from 'y-prosemirror';
import { schema } from './schema.ts';
import { docParts } from './doc-layout.ts';
import { blockToMarkdown } from './markdown.ts';
import { contentHash } from './hash.ts';
import type { Origin } from './origins.ts';

/** One top-level block as the API and agents see it. */
export interface BlockView {
  id: string;
  type: string;
  markdown: string;
  hash: string;
}

/**
 * The ProseMirror document held by a text Y.Doc, read from a scratch copy: y-prosemirror
 * deletes content its schema cannot build, so the live document is never projected.
 */
export function readProseMirrorDoc(ydoc: Y.Doc): Node {
  const scratch = new Y.Doc({ gc: false });
  Y.applyUpdate(scratch, Y.encodeStateAsUpdate(ydoc));
  return yXmlFragmentToProseMirrorRootNode(docParts(scratch).content, schema);
}

/** The hash of a block's content, independent of its id. */
export function blockHash(block: Node): string {
  return contentHash(block.type.name + '\n' + blockToMarkdown(block));
}

export function viewBlock(block: Node): BlockView {
  return {
    id: String(block.attrs.id ?? ''),
    type: block.type.name,
    markdown: blockToMarkdown(block),
    hash: blockHash(block),
  };
}

export function readBlocks(ydoc: Y.Doc): BlockView[] {
  const blocks: BlockView[] = [];
  readProseMirrorDoc(ydoc).forEach((block) => blocks.push(viewBlock(block)));
  return blocks;
}

/** Fills an empty text Y.Doc with `doc`, as one transaction with `origin`. */
export function writeInitialContent(ydoc: Y.Doc, doc: Node, origin: Origin): void {
  ydoc.transact(() => {
    prosemirrorToYXmlFragment(doc, docParts(ydoc).content);
  }, origin);
}

/**
 * Brings the text of `ydoc` to `doc` with the smallest change y-prosemirror can find (kept
 * nodes are diffed in place, so anchors and concurrent typing inside them survive).
 */
export function writeContent(ydoc: Y.Doc, doc: Node, origin: Origin): void {
  ydoc.transact(() => {
    updateYFragment(ydoc, docParts(ydoc).content, doc, { mapping: new Map(), isOMark: new Map() });
  }, origin);
}
