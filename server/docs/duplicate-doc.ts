import type { Hocuspocus } from '@hocuspocus/server';
import { docName } from '../../shared/model/doc-layout.ts';
import { shownTitle } from '../../shared/model/doc-title.ts';
import { pageSource } from '../../shared/page/page-source.ts';
import type { DocRecord, Store } from '../store/store.ts';
import { createDoc } from './create-doc.ts';
import { readDocState } from './read-doc.ts';
import { textBlocksJson, textMarkdown } from './text-views.ts';

/**
 * CAT4: a new document holding what `source` holds now: a text document's Markdown export (a
 * run in review reads as accepted, as in every export), a page's source. Annotations, runs and
 * history stay with the original. The copy is titled "Copy of TITLE" (the title as shown,
 * CAT1), or has no title when the original has none to show.
 */
export async function duplicateDoc(store: Store, hocuspocus: Hocuspocus, source: DocRecord, maxTitle: number): Promise<DocRecord> {
  const name = docName(source.id);
  if (source.kind === 'page') {
    const { title, html } = await readDocState(hocuspocus, store, name, (ydoc) => ({ title: shownTitle(ydoc), html: pageSource(ydoc) }));
    return createDoc(store, { kind: 'page', title: copyTitle(title, maxTitle), html });
  }
  const [{ title }, markdown] = await Promise.all([textBlocksJson(hocuspocus, store, name), textMarkdown(hocuspocus, store, name)]);
  return createDoc(store, { kind: 'text', title: copyTitle(title, maxTitle), markdown });
}

function copyTitle(title: string, max: number): string {
  return title ? `Copy of ${title}`.slice(0, max) : '';
}
