import * as Y from 'yjs';
import { derivedBlockId } from './block-ids.ts';
import { docParts } from './doc-layout.ts';
import { carriesId, holdsBlocks, schema } from './schema.ts';
import type { Origin } from './origins.ts';

/**
 * Gives ids to the nested blocks of a text Y.Doc written before nested blocks had them (OP12):
 * each list item, and each block inside a list item or a quote, that lacks an id and whose
 * parent has one gets `derivedBlockId(parent, index)`, as the editors' id plugin and the API's
 * reading (shared/model/block-ids.ts) give it, so that the server, every editor and every
 * instance that loads the same text write the same ids and none of them fights another. Written
 * straight on the Yjs elements (the live text is never projected, DOC2), as one transaction
 * with `origin`; nothing is written when no block lacks an id. Missing top-level ids and
 * repeated ids are the editors' to renew, as before.
 */
export function giveNestedIds(ydoc: Y.Doc, origin: Origin): number {
  const root = docParts(ydoc).content;
  const taken = new Set<string>();
  walk(root, (yelement) => {
    const id = yelement.getAttribute('id');
    if (typeof id === 'string' && id !== '') taken.add(id);
  });
  const given = new Map<Y.XmlElement, string>();
  walk(root, (yelement, parent, index) => {
    const id = yelement.getAttribute('id');
    // As the id plugin: only a block with no id at all gets a derived one.
    if (id !== undefined || !(parent instanceof Y.XmlElement)) return;
    const parentId = given.get(parent) ?? parent.getAttribute('id');
    if (typeof parentId !== 'string' || parentId === '') return;
    const derived = derivedBlockId(parentId, index);
    if (taken.has(derived)) return;
    taken.add(derived);
    given.set(yelement, derived);
  });
  if (given.size > 0) ydoc.transact(() => given.forEach((id, yelement) => yelement.setAttribute('id', id)), origin);
  return given.size;
}

/**
 * Every element that carries an id, in document order (a parent before its children), with its
 * parent and its index there, descending only into elements that hold blocks.
 */
function walk(root: Y.XmlFragment | Y.XmlElement, visit: (yelement: Y.XmlElement, parent: Y.XmlFragment | Y.XmlElement, index: number) => void): void {
  let index = 0;
  for (const child of root.toArray()) {
    const at = index++;
    if (!(child instanceof Y.XmlElement)) continue;
    const type = schema.nodes[child.nodeName];
    if (type === undefined || !carriesId(type)) continue;
    visit(child, root, at);
    if (holdsBlocks(type)) walk(child, visit);
  }
}
