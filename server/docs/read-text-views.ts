import * as Y from 'yjs';
import { shownTitle } from '../../shared/model/doc-title.ts';
import { projectScratch, viewBlocks, withoutPendingDeletes } from '../../shared/model/doc-content.ts';
import { docToMarkdown, markdownToDoc } from '../../shared/model/markdown.ts';
import type { Node } from 'prosemirror-model';
import { applyStored, type StoredDocument } from '../store/update-log.ts';
import * as random from 'lib0/random';
import { newTextContent, writeNewDoc } from './create-doc.ts';
import { encodedNewTextState } from './new-text-state.ts';
import { storedTextContent } from './stored-text-content.ts';
import { plainText } from './search-entry.ts';
import { withoutUnknownBlocks } from '../../shared/model/unknown-content.ts';
import type { SearchEntry } from '../store/doc-search.ts';

/** What the API reads of a text document: its title, its blocks (the JSON text of BlockView[]) and its Markdown. */
export interface TextViews {
  title: string;
  blocks: string;
  markdown: string;
}

/**
 * A text document's state, as a work task receives it: what is stored (the compacted state and
 * the updates logged since, each read for shape first, SHAPE5, as a load reads them), or the
 * encoded state of a live document, which passed those checks on its way in.
 */
export type TextState = { stored: StoredDocument } | { live: Uint8Array };

/**
 * The views of a text document, read once from one scratch Y.Doc: applied once, projected to
 * ProseMirror once, and both views written from that one tree (LIMIT10). Runs in a work thread;
 * its cost grows with the document.
 */
export function readTextViews(input: TextState): TextViews {
  const direct = writtenDirectly(input);
  if (direct) return viewsOf(titleOf(direct.meta.title, direct.content), withoutPendingDeletes(withoutUnknownBlocks(direct.content)));
  return withTextDoc(input, (ydoc) => viewsOf(shownTitle(ydoc), withoutPendingDeletes(projectScratch(ydoc))));
}

/**
 * The content and meta of a state that new-text-state.ts wrote and nobody has changed since (an
 * import as it is stored until its first edit), read without a Y.Doc (stored-text-content.ts).
 */
function writtenDirectly(input: TextState): ReturnType<typeof storedTextContent> {
  if ('live' in input) return storedTextContent(input.live);
  return input.stored.state && input.stored.updates.length === 0 ? storedTextContent(input.stored.state) : null;
}

/** Calls `read` with a scratch Y.Doc holding `input`'s state, destroyed afterwards. */
export function withTextDoc<T>(input: TextState, read: (ydoc: Y.Doc) => T): T {
  const ydoc = new Y.Doc({ gc: false });
  try {
    if ('live' in input) Y.applyUpdate(ydoc, input.live);
    else applyStored(ydoc, input.stored);
    return read(ydoc);
  } finally {
    ydoc.destroy();
  }
}

/**
 * A new text document's state, the client ids it holds, its views and its search entry (CAT2),
 * from one parse of its Markdown and without reading the state back: both are read from the Y.Doc the state is
 * encoded from, projected once, as `readTextViews` and the `searchEntry` task read them
 * (tests/unit/text-views.test.ts), so the first readers of an import, and the search index,
 * need not read it again. (The parsed Markdown itself does not always read back as itself:
 * y-prosemirror joins and drops some text nodes.) Content that new-text-state.ts writes
 * directly (no marks: most long prose) reads back as itself, so its state is written without a
 * Y.Doc and its views are read from the parsed content; the title from a Y.Doc of its first
 * blocks, all that the first line is looked for in (doc-title.ts).
 */
export function importTextState(input: { title: string; markdown: string }): { state: Uint8Array; clients: number[]; views: TextViews; search: SearchEntry } {
  const content = newTextContent(markdownToDoc(input.markdown));
  const client = random.uint32();
  const state = encodedNewTextState(content, { title: input.title, kind: 'text' }, client);
  if (state) {
    const title = titleOf(input.title, content);
    return { state, clients: [client], views: viewsOf(title, withoutPendingDeletes(content)), search: { title, text: plainText(content) } };
  }
  const ydoc = new Y.Doc();
  try {
    writeNewDoc(ydoc, { kind: 'text', ...input }, content);
    const state = Y.encodeStateAsUpdate(ydoc);
    const title = shownTitle(ydoc);
    const doc = projectScratch(ydoc);
    // The client ids the state holds (those `Y.parseUpdateMeta` reads from it), for WHO6's claim.
    const clients = [...ydoc.store.clients.keys()];
    return { state, clients, views: viewsOf(title, withoutPendingDeletes(doc)), search: { title, text: plainText(doc) } };
  } finally {
    ydoc.destroy();
  }
}

/** The title a text written as `content` with the meta `title` shows (CAT1), read from a Y.Doc of that title and its first blocks. */
function titleOf(title: string, content: Node): string {
  const first: Node[] = [];
  for (let i = 0; i < Math.min(content.childCount, firstBlocksForTitle); i++) first.push(content.child(i));
  const ydoc = new Y.Doc();
  try {
    writeNewDoc(ydoc, { kind: 'text', title, markdown: '' }, content.type.create(null, first));
    return shownTitle(ydoc);
  } finally {
    ydoc.destroy();
  }
}

/** More top-level blocks than doc-title.ts looks for a first line in (it visits 50 elements). */
const firstBlocksForTitle = 64;

function viewsOf(title: string, doc: Node): TextViews {
  return { title, blocks: JSON.stringify(viewBlocks(doc)), markdown: docToMarkdown(doc) };
}
