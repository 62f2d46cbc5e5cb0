import * as Y from 'yjs';
import { shownTitle } from '../../shared/model/doc-title.ts';
import { searchEntryOf } from '../docs/search-entry.ts';
import { docToHtml } from '../docs/doc-html.ts';
import { docToDocx } from '../docs/doc-docx.ts';
import { htmlToDoc } from '../docs/html-import.ts';
import { exportedDoc } from '../docs/doc-markdown.ts';
import { markdownToDoc } from '../../shared/model/markdown.ts';
import { markdownImportWarnings } from '../../shared/model/markdown-warnings.ts';
import { applyPageOps, candidateOf, revertPageChanges, type PageChange } from '../../shared/page/page-applier.ts';
import { normalizePage } from '../../shared/page/page-model.ts';
import { newElementId } from '../../shared/page/page-source.ts';
import { PageLimitError } from '../../shared/page/page-limits.ts';
import { buildInitialState, type NewDoc } from '../docs/create-doc.ts';
import type { OwnImages } from '../docs/own-images.ts';
import { importTextState, readTextViews, withTextDoc, type TextState } from '../docs/read-text-views.ts';
import { readPageView } from '../pages/page-view.ts';
import { serverPageTools } from '../pages/page-tools.ts';

/**
 * The work a WorkPool's threads do (server/work/work-pool.ts): everything whose cost grows with
 * what a client wrote, so that it runs off the event loop. Each task is a pure function of
 * structured-cloneable input; a refusal is thrown as a `TaskRefusal` (its code and message go
 * back to the caller), anything else is a failure.
 */
export const workTasks = {
  /** PAGE3: a page's source, sanitized, and its elements. */
  pageView: (source: string) => readPageView(source),
  /** PAGE1: the source a new page's HTML is stored as. */
  normalizePage: (html: string) => normalizePage(serverPageTools(), html, newElementId),
  /** PAGE7: a page run's candidate. */
  pageCandidate: ({ source, changes }: { source: string; changes: PageChange[] }) => candidateOf(serverPageTools(), source, changes),
  /** PAGE5–PAGE7: a batch of page ops validated and applied to the candidate. */
  applyPageOps: ({
    source,
    earlier,
    ops,
    fence,
    instructions,
    allowedOps,
    answered,
  }: {
    source: string;
    earlier: PageChange[];
    ops: unknown;
    fence: string[];
    instructions: string[];
    allowedOps: string[];
    answered: [string, boolean][];
  }) =>
    applyPageOps(serverPageTools(), source, earlier, ops, {
      fence: new Set(fence),
      instructions: new Set(instructions),
      allowedOps: new Set(allowedOps),
      makeId: newElementId,
      answered: new Map(answered),
    }),
  /** PAGE13: a page's source with a run's changes taken back. */
  revertPage: ({ source, changes }: { source: string; changes: PageChange[] }) => revertPageChanges(serverPageTools(), source, changes),
  /** The stored state of a new document (Markdown parsed, or HTML normalized). */
  initialState: (input: NewDoc) => buildInitialState(input),
  /** A text document's title, blocks (the JSON text of the API's `blocks`) and Markdown, from its stored or live state. */
  textViews: (input: TextState) => readTextViews(input),
  /** A new text document's state, and its views (as `textViews` reads them from that state). */
  importText: (input: { title: string; markdown: string }) => importTextState(input),
  /** CAT2: what the search index keeps of a document's state: its title as shown and its plain text. */
  searchEntry: (state: Uint8Array) => withDoc(state, searchEntryOf),
  /** CAT5: a text document's state as a standalone HTML page. */
  textHtml: (input: TextState & { images?: OwnImages }) => withTextDoc(input, (ydoc) => docToHtml(exportedDoc(ydoc), shownTitle(ydoc), input.images)),
  /** CAT5: a text document's state as a Word document. */
  textDocx: (input: TextState & { images?: OwnImages }) => {
    const { doc, title } = withTextDoc(input, (ydoc) => ({ doc: exportedDoc(ydoc), title: shownTitle(ydoc) }));
    return docToDocx(doc, title, input.images);
  },
  /** CAT5: a page as a Word document: its sanitized source read as a text document's HTML import is. */
  pageDocx: ({ source, title }: { source: string; title: string }) => docToDocx(htmlToDoc(source).doc, title),
  /** CAT6: Markdown or HTML to import, as the JSON of a ProseMirror document, and what it could not keep. */
  importSource: ({ format, source }: { format: 'markdown' | 'html'; source: string }) => {
    const { doc, warnings } = format === 'html' ? htmlToDoc(source) : { doc: markdownToDoc(source), warnings: markdownImportWarnings(source) };
    return { doc: doc.toJSON() as Record<string, unknown>, warnings };
  },
  /** CAT6: what a new document's Markdown could not keep. */
  markdownWarnings: (markdown: string) => markdownImportWarnings(markdown),
};

export type WorkTasks = typeof workTasks;

/** An expected refusal of a task's input: the pool rejects with a Rejection of this code. */
export class TaskRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What a task's failure becomes on its way back: a limit it broke, or an unexpected error. */
export function refusalOf(error: unknown): { code: string; message: string } | null {
  if (error instanceof PageLimitError) return error.problem;
  if (error instanceof TaskRefusal) return { code: error.code, message: error.message };
  return null;
}

function withDoc<T>(state: Uint8Array, read: (ydoc: Y.Doc) => T): T {
  return withTextDoc({ live: state }, read);
}
