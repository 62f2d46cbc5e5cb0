import type { Hocuspocus } from '@hocuspocus/server';
import { anchorForBlock, type PinnedRange } from '../../shared/model/anchors.ts';
import { maxTextLength, readAnnotation, type Author } from '../../shared/notes/annotations.ts';
import { createAnnotation } from '../../shared/notes/annotations-writers.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import type { RunChange, RunItem } from '../../shared/protocol/run-record.ts';
import { withDocument } from '../docs/with-document.ts';
import { DiscardBody } from '../../shared/wire/runs.ts';
import { readInput } from '../read-input.ts';
import type { Store, StoredRun } from '../store/store.ts';

/**
 * Discard with a reason (PROTOCOL.md REV5, REV12): after a discard has taken its items back,
 * the discarder's reason becomes a new `draft` instruction for each instruction it discarded
 * that had a change, so the next run can try again with what was wrong. Each is pinned to the whole
 * target block as Discard restored it (its quote is that text) and records, as
 * `discardedChange`, what the agent had proposed there. When the block is gone (a person
 * deleted it meanwhile) the draft takes the anchor, block and quote of the instruction it
 * follows; when that is gone too, none is made for it.
 *
 * This step runs after the run is `discarded` and is not part of Discard's all-or-nothing
 * transition: a server stopped between the two keeps the discard and loses the reason.
 */

/**
 * The reason of `POST /api/runs/:runId/discard` (`{reason?}`, trimmed; shared/wire/runs.ts), or
 * null when none was given. Throws Rejection 422 `INVALID_REASON` for a bad reason, 422
 * `INVALID_BODY` for a body that is not an object.
 */
export function parseDiscardReason(body: unknown): string | null {
  if (body === undefined) return null;
  const read = readInput(DiscardBody, body, { codeOf: (field) => (field === 'reason' ? 'INVALID_REASON' : undefined) });
  return read.reason ?? null;
}

/**
 * Creates the draft instructions of a discard's reason for the discarded items `discardedIds`
 * (those the discard decided: one item, or every item Discard run decided, REV12); their ids,
 * in the run's order.
 */
export async function pinDiscardReason(
  deps: { hocuspocus: Hocuspocus; store: Store },
  run: StoredRun,
  reason: string,
  author: Author,
  discardedIds: ReadonlySet<string>,
  now = Date.now(),
): Promise<string[]> {
  const changed = run.items.filter(
    (item) => discardedIds.has(item.instructionId) && run.changes.some((change) => change.instructionId === item.instructionId),
  );
  if (changed.length === 0) return [];
  const { hocuspocus, store } = deps;
  const ids = await withDocument(hocuspocus, docName(run.docId), (text) =>
    withDocument(hocuspocus, docName(run.docId, 'notes'), (notes) => {
      const created: string[] = [];
      notes.transact(() => {
        for (const item of changed) {
          const pin = anchorForBlock(text, item.blockId) ?? pinOfInstruction(notes, item);
          if (!pin) continue;
          const result = createAnnotation(
            notes,
            {
              kind: 'instruction',
              ...pin,
              author,
              text: reason,
              now,
              state: 'draft',
              discardedChange: proposedChange(run.changes, item.instructionId),
            },
            serverOrigin,
          );
          if (result.ok) created.push(result.id);
        }
      }, serverOrigin);
      return created;
    }),
  );
  if (ids.length > 0) await store.annotationDocs.add(run.docId, ids);
  return ids;
}

/** What the run wrote for one instruction: the Markdown of its changes, empty for deletions only. */
function proposedChange(changes: readonly RunChange[], instructionId: string): string {
  const written = changes
    .filter((change) => change.instructionId === instructionId && change.after !== null)
    .map((change) => change.after as string)
    .join('\n\n');
  return written.length <= maxTextLength ? written : written.slice(0, maxTextLength - 1) + '…';
}

function pinOfInstruction(notes: Parameters<typeof readAnnotation>[0], item: RunItem): PinnedRange | null {
  const found = readAnnotation(notes, item.instructionId);
  if (!found.ok) return null;
  const { anchor, blockId, quote } = found.annotation;
  return { anchor, blockId, quote };
}
