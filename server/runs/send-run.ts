import type { Hocuspocus } from '@hocuspocus/server';
import { readAnnotations, type Author, type Instruction } from '../../shared/notes/annotations.ts';
import { setInstructionState } from '../../shared/notes/annotations-writers.ts';
import { resolveAnchors } from '../../shared/model/anchors.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { currentQuote, driftOf } from '../../shared/notes/drift.ts';
import { randomId } from '../../shared/model/ids.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { docMarkdown } from '../docs/doc-markdown.ts';
import { readDocState } from '../docs/read-doc.ts';
import { withDocument } from '../docs/with-document.ts';
import type { DocRecord, Store, StoredRun } from '../store/store.ts';
import { elementAsPinned } from '../pages/page-pin.ts';
import { pageSource } from '../../shared/page/page-source.ts';
import { textMarkdown } from '../docs/text-views.ts';

export type SendResult = { ok: true; run: StoredRun } | { ok: false; code: 'NOTHING_TO_SEND' | 'RUN_OUTSTANDING' };

/**
 * Send (RUN1): makes one run of every queued, unresolved instruction of a document (in creation
 * order), with the whole document as Markdown for context and, per instruction, the text its
 * anchors cover now beside its quote (drift, RUN5); marks those instructions `sent`
 * with the run's id (the store's change event mirrors the run into `<id>/runs`).
 *
 * The run store decides which of concurrent sends wins (RUN2: one outstanding run per document, a
 * unique index): a send it refuses returns RUN_OUTSTANDING before touching any instruction.
 * Instructions are read before the run is stored; one that an editor moves back to draft or
 * deletes in that moment still goes with the run (its text was copied), but keeps its state.
 */
export async function sendRun(
  deps: { store: Store; hocuspocus: Hocuspocus },
  doc: DocRecord,
  sender: Author,
  now = Date.now(),
): Promise<SendResult> {
  const { store, hocuspocus } = deps;
  const contextMarkdown =
    doc.kind === 'page'
      ? await readDocState(hocuspocus, store, docName(doc.id), (ydoc) => docMarkdown(doc.kind, ydoc))
      : await textMarkdown(hocuspocus, store, docName(doc.id));
  return withDocument(hocuspocus, docName(doc.id, 'notes'), async (notesYdoc): Promise<SendResult> => {
    const queued = readAnnotations(notesYdoc).annotations.filter(
      (annotation): annotation is Instruction =>
        annotation.kind === 'instruction' && annotation.state === 'queued' && !annotation.resolved,
    );
    if (queued.length === 0) {
      // A concurrent send may have taken them all: that is an outstanding run, not an empty queue.
      const outstanding = await store.runs.outstandingRun(doc.id);
      return { ok: false, code: outstanding ? 'RUN_OUTSTANDING' : 'NOTHING_TO_SEND' };
    }
    const pinned =
      doc.kind === 'page'
        ? await readDocState(hocuspocus, store, docName(doc.id), pageSource).then((source) =>
            Promise.all(queued.map((instruction) => elementAsPinned(source, instruction.blockId))),
          )
        : await readDocState(hocuspocus, store, docName(doc.id), (ydoc) =>
            resolveAnchors(
              ydoc,
              queued.map((instruction) => instruction.anchor),
            ),
          );
    const created = await store.runs.createRun({
      id: 'r' + randomId(11),
      docId: doc.id,
      createdBy: { id: sender.id, name: sender.name },
      createdAt: now,
      contextMarkdown,
      items: queued.map((instruction, index) => ({
        instructionId: instruction.id,
        blockId: instruction.blockId,
        instruction: instruction.turns[0].text,
        quote: instruction.quote,
        currentText: currentQuote(pinned[index]),
        drifted: driftOf(instruction.quote, pinned[index]) !== null,
        variantsWanted: instruction.variants ?? 1,
      })),
    });
    if (!created.ok) return { ok: false, code: 'RUN_OUTSTANDING' };
    const { run } = created;
    notesYdoc.transact(() => {
      for (const item of run.items) setInstructionState(notesYdoc, item.instructionId, 'sent', run.id, serverOrigin);
    }, serverOrigin);
    return { ok: true, run };
  });
}
