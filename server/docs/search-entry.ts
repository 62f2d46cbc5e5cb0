import type * as Y from 'yjs';
import type { Node } from 'prosemirror-model';
import { projectScratch } from '../../shared/model/doc-content.ts';
import { docParts, readMeta } from '../../shared/model/doc-layout.ts';
import { shownTitle } from '../../shared/model/doc-title.ts';
import type { SearchEntry } from '../store/doc-search.ts';

/**
 * What the search index keeps of a document (CAT2): its title as shown (CAT1) and its plain
 * text, a line per block. A page's text is its source with the tags taken out: the index only
 * matches words, nothing of it is shown, so no HTML parse is needed.
 */
export function searchEntryOf(scratch: Y.Doc): SearchEntry {
  const title = shownTitle(scratch);
  if (readMeta(scratch).kind === 'page') {
    return { title, text: docParts(scratch).html.toString().replace(/<[^>]*>/g, ' ').replace(/&[#\w]+;/g, ' ') };
  }
  // `scratch` is a copy made to be read (work-tasks.ts `withDoc`): projected as it is, not copied again.
  return { title, text: plainText(projectScratch(scratch)) };
}

/** A text's plain text, a line per block. */
export function plainText(doc: Node): string {
  return doc.textBetween(0, doc.content.size, '\n', ' ');
}
