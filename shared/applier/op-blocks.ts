import type { Node } from 'prosemirror-model';
import { markdownToBlocks } from '../model/markdown.ts';
import { parseAssetUrl } from '../model/image-src.ts';
import { carriesId, holdsBlocks } from '../model/schema.ts';

/** The blocks an op carries, as the applier (applier.ts) reads, checks and names them. */

/** The top-level blocks of `markdown`, schema-valid, or null when there are none. */
export function parseBlocks(markdown: string): Node[] | null {
  try {
    const blocks = markdownToBlocks(markdown);
    blocks.forEach((block) => block.check());
    return blocks.length > 0 ? blocks : null;
  } catch {
    return null;
  }
}

/** IMG4: the first image address among `blocks` that names an asset not in `assets`, else null. */
export function unknownAssetIn(blocks: readonly Node[], assets: ReadonlySet<string> = new Set()): string | null {
  let unknown: string | null = null;
  for (const block of blocks) {
    block.descendants((node) => {
      if (unknown === null && node.type.name === 'image' && parseAssetUrl(node.attrs.src) && !assets.has(node.attrs.src)) unknown = node.attrs.src;
      return unknown === null;
    });
    if (unknown === null && block.type.name === 'image' && parseAssetUrl(block.attrs.src) && !assets.has(block.attrs.src)) unknown = block.attrs.src;
  }
  return unknown;
}

/**
 * `node` with `id`, and every block inside it with one: the id of the block of its type at the
 * same place in `old` (the block it replaces) when there is one, else a fresh one.
 */
export function withIds(node: Node, id: string, old: Node | null, freshId: () => string): Node {
  const attrs = { ...node.attrs, id };
  if (!holdsBlocks(node.type)) return node.type.create(attrs, node.content, node.marks);
  const children: Node[] = [];
  const kept = new Set<string>();
  node.forEach((child, _offset, index) => {
    if (!carriesId(child.type)) {
      children.push(child);
      return;
    }
    const was = old !== null && index < old.childCount && old.child(index).type === child.type ? old.child(index) : null;
    const wasId: unknown = was?.attrs.id;
    const keep = typeof wasId === 'string' && wasId !== '' && !kept.has(wasId);
    if (keep) kept.add(wasId);
    children.push(withIds(child, keep ? wasId : freshId(), was, freshId));
  });
  return node.type.create(attrs, children, node.marks);
}
