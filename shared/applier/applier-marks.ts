import * as Y from 'yjs';
import type { Mark } from 'prosemirror-model';
import { schema } from '../model/schema.ts';
import { docParts } from '../model/doc-layout.ts';
import { withoutChangeMarks } from '../model/markdown.ts';
import { readBlock, updateBlock } from './applier-write.ts';
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
 * false, writing nothing, when the run has no mark left.
 */
export function clearChangeMarks(ydoc: Y.Doc, runId: string, origin: Origin): boolean {
  const work = docParts(ydoc)
    .content.toArray()
    .flatMap((yblock) => {
      if (!(yblock instanceof Y.XmlElement)) return [];
      const before = readBlock(yblock);
      const after = before && withoutChangeMarks(before, runId);
      return before && after && after !== before ? [{ yblock, before, after }] : [];
    });
  if (work.length === 0) return false;
  ydoc.transact(() => work.forEach(({ yblock, after }) => updateBlock(yblock, after, null, false)), origin);
  return true;
}
