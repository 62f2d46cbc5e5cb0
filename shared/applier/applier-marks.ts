import * as Y from 'yjs';
import type { Mark, Node } from 'prosemirror-model';
import { schema } from '../model/schema.ts';
import { docParts } from '../model/doc-layout.ts';
import { withoutChangeMarks } from '../model/markdown.ts';
import { markNameOf, readBlock, updateBlock } from './applier-write.ts';
import type { Origin } from '../model/origins.ts';

/**
 * The review's `change` mark (shared/model/schema.ts): which run, answering which instruction,
 * inserted a piece of text. The applier puts it on exactly the characters a run inserts (see
 * applier-write.ts): marking text that Yjs keeps would be a format change on text people may
 * be editing, and a larger undo; Discard run removes the marks with the run's text. Accept run
 * removes them with `clearChangeMarks`. Markdown and block hashes never see them
 * (markdown.ts strips them), so a mark never makes a block stale.
 */

/** OP4: the mark on the text a run inserts, naming the run and the instruction it answers. */
export function changeMark(runId: string, instructionId: string): Mark {
  return schema.marks.change.create({ runId, instructionId });
}

/**
 * Removes run `runId`'s change marks from the text of `ydoc` (Accept run), as one transaction
 * with `origin`, writing only formatting, and only on text that carries such a mark. Returns
 * false, writing nothing, when the run has no mark left. With `instructionIds`, only the marks of
 * those instructions go (an item's Accept, REV12). Only blocks holding a format item of
 * the run are read as ProseMirror nodes (`mayHoldChangeMark`).
 */
export function clearChangeMarks(ydoc: Y.Doc, runId: string, origin: Origin, instructionIds?: ReadonlySet<string>): boolean {
  const work: { yblock: Y.XmlElement; after: Node }[] = [];
  for (let item = docParts(ydoc).content._start; item !== null; item = item.right) {
    const yblock = !item.deleted && item.content instanceof Y.ContentType ? item.content.type : null;
    if (!(yblock instanceof Y.XmlElement) || !mayHoldChangeMark(yblock, runId)) continue;
    const before = readBlock(yblock);
    const after = before && withoutChangeMarks(before, runId, instructionIds);
    if (before && after && after !== before) work.push({ yblock, after });
  }
  if (work.length === 0) return false;
  ydoc.transact(() => work.forEach(({ yblock, after }) => updateBlock(yblock, after, null, false)), origin);
  return true;
}

/**
 * Whether `ytype` (a block) holds, at any depth, a live format item that reads as a change mark
 * of run `runId`: false means that reading it gives no such mark, so Accept has nothing to
 * write there. A walk over the Yjs items, without reading the text into ProseMirror nodes.
 */
export function mayHoldChangeMark(ytype: { _start: Y.Item | null }, runId: string): boolean {
  for (let item = ytype._start; item !== null; item = item.right) {
    if (item.deleted) continue;
    const content = item.content;
    if (content instanceof Y.ContentType) {
      if (mayHoldChangeMark(content.type, runId)) return true;
    } else if (content instanceof Y.ContentFormat && markNameOf(content.key) === 'change') {
      const value: unknown = content.value;
      if (typeof value === 'object' && value !== null && (value as { runId?: unknown }).runId === runId) return true;
    }
  }
  return false;
}
