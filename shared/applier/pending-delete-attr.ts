import * as Y from 'yjs';

/**
 * The `deleting` attribute of a top-level block a run deleted, pending review (PROTOCOL.md
 * OP7; pending-delete.ts writes and settles it). Only Yjs here: the editor reads it too.
 */

export const pendingDeleteAttr = 'deleting';

export interface PendingDelete {
  runId: string;
  /** The block's id when the run read it (the id its change names). */
  blockId: string;
  /** The block hash the run read (shared/model/doc-content.ts `blockHash`). */
  hash: string;
  /** Per Yjs client (as a decimal string), the next clock after the block's items at marking. */
  seen: Record<string, number>;
}

/** The pending delete a block attribute value holds, or null (absent, or not one). */
export function parsePendingDelete(value: unknown): PendingDelete | null {
  if (typeof value !== 'string' || value === '') return null;
  try {
    const parsed = JSON.parse(value) as Partial<PendingDelete>;
    if (typeof parsed.runId !== 'string' || typeof parsed.blockId !== 'string' || typeof parsed.hash !== 'string') return null;
    const seen = typeof parsed.seen === 'object' && parsed.seen !== null ? parsed.seen : {};
    return { runId: parsed.runId, blockId: parsed.blockId, hash: parsed.hash, seen };
  } catch {
    return null;
  }
}

/** The pending delete of a top-level Yjs block, or null. */
export function pendingDeleteOf(yblock: unknown): PendingDelete | null {
  return yblock instanceof Y.XmlElement ? parsePendingDelete(yblock.getAttribute(pendingDeleteAttr)) : null;
}

/**
 * The Yjs clients that wrote in `yblock` since the run marked it for deletion (by `seen`),
 * apart from its `id` and `deleting` attributes, which the run writes.
 */
export function writersSince(yblock: Y.XmlElement, pending: PendingDelete): number[] {
  const clients = new Set<number>();
  forEachOwnItem(yblock, (item) => {
    if (item.id.clock + item.length > (pending.seen[String(item.id.client)] ?? 0)) clients.add(item.id.client);
  });
  return [...clients];
}

/**
 * What the review says of a delete or replacement that Accept does not apply because people
 * changed the block meanwhile (REV6), naming them when known.
 */
export function notAppliedNote(names: readonly string[], op: 'replace_block' | 'delete_block'): string {
  const who = names.length === 0 ? 'someone' : names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  const kept = op === 'replace_block' ? 'the block is kept beside the new text' : 'the block is kept';
  return `Not applied: changed by ${who} meanwhile; ${kept}.`;
}

/**
 * Calls `visit` with every Yjs item of the block's content and attributes, deleted or not,
 * except the items of its own `id` and `deleting` attributes (the run writes those).
 */
export function forEachOwnItem(yblock: Y.XmlElement, visit: (item: Y.Item) => void): void {
  const walk = (type: Y.AbstractType<unknown>, top: boolean) => {
    for (const [key, last] of type._map) {
      if (top && (key === 'id' || key === pendingDeleteAttr)) continue;
      for (let item: Y.Item | null = last; item !== null; item = item.left) visit(item);
    }
    for (let item = type._start; item !== null; item = item.right) {
      visit(item);
      if (item.content instanceof Y.ContentType) walk(item.content.type, false);
    }
  };
  walk(yblock as unknown as Y.AbstractType<unknown>, true);
}
