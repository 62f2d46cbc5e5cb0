import type * as Y from 'yjs';
import { readProseMirrorDoc } from '../../shared/model/doc-content.ts';
import { docParts, readMeta } from '../../shared/model/doc-layout.ts';
import { shownTitle } from '../../shared/model/doc-title.ts';
import type { SearchEntry } from '../store/doc-search.ts';

/**
 * What the search index keeps of a document (CAT2): its title as shown (CAT1) and its plain
 * text, a line per block. A page's text is its source with the tags taken out: the index only
 * matches words, nothing of it is shown, so no HTML parse is needed.
 */
export function searchEntryOf(ydoc: Y.Doc): SearchEntry {
  const title = shownTitle(ydoc);
  if (readMeta(ydoc).kind === 'page') {
    return { title, text: docParts(ydoc).html.toString().replace(/<[^>]*>/g, ' ').replace(/&[#\w]+;/g, ' ') };
  }
  const doc = readProseMirrorDoc(ydoc);
  return { title, text: doc.textBetween(0, doc.content.size, '\n', ' ') };
}
