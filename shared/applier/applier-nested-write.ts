import * as Y from 'yjs';
import type { Mark, Node } from 'prosemirror-model';
import { blockHash, withoutPendingDeletes } from '../model/doc-content.ts';
import { holdsBlocks, schema } from '../model/schema.ts';
import { newBlock, readBlock, updateBlock } from './applier-write.ts';
import { markPendingDelete, pendingDeleteOf } from './pending-delete.ts';

/**
 * Writes `after` over `yelement`, a block that holds blocks (a list, a list item, a quote) of
 * `after`'s type, block by block (OP12): its live children (those no run deleted pending review)
 * are paired with `after`'s children in order; a pair of one type is written in place (a block
 * holding blocks by this same function, a text block by `updateBlock`), any other old child is
 * marked for deletion on Accept (OP7) rather than removed, and new children are inserted after
 * the child before them. So a nested block an op removes stays, struck through, until the run
 * is decided, and what people type in it meanwhile is neither lost on Discard nor dropped by
 * Accept (REV6, REV7), as for a top-level block. Children already pending deletion stay where
 * they are, untouched. Text written anew gets `mark`.
 */
export function writeHoldingBlock(yelement: Y.XmlElement, after: Node, mark: Mark, runId: string): void {
  for (const [key, value] of Object.entries(after.attrs)) {
    if (key === 'deleting') continue;
    if (value === null) {
      if (yelement.getAttribute(key) !== undefined) yelement.removeAttribute(key);
    } else if (yelement.getAttribute(key) !== value) {
      yelement.setAttribute(key, value);
    }
  }
  const live = yelement.toArray().filter((child): child is Y.XmlElement => child instanceof Y.XmlElement && pendingDeleteOf(child) === null);
  const news: Node[] = [];
  after.forEach((child) => news.push(child));
  // Where the next new child goes: after the last live child written or marked.
  let anchor: Y.XmlElement | null = null;
  const insertAfterAnchor = (children: Y.XmlElement[]) => {
    if (children.length === 0) return;
    const at = anchor === null ? 0 : yelement.toArray().indexOf(anchor) + 1;
    yelement.insert(at, children);
    anchor = children[children.length - 1];
  };
  const count = Math.max(live.length, news.length);
  for (let i = 0; i < count; i++) {
    const old = live[i];
    const next = news[i];
    if (old !== undefined && next !== undefined && old.nodeName === next.type.name) {
      if (holdsBlocks(next.type)) writeHoldingBlock(old, next, mark, runId);
      else updateBlock(old, next, mark);
      anchor = old;
      continue;
    }
    if (old !== undefined) {
      const read = readBlock(old);
      const id = old.getAttribute('id');
      markPendingDelete(old, runId, typeof id === 'string' ? id : '', read === null ? '' : blockHash(withoutPendingDeletes(read)));
      anchor = old;
    }
    if (next !== undefined) insertAfterAnchor([newBlock(next, mark)]);
  }
}

/** Whether a block of this type is written child by child (`writeHoldingBlock`). */
export function writtenChildByChild(typeName: string): boolean {
  const type = schema.nodes[typeName];
  return type !== undefined && holdsBlocks(type);
}
