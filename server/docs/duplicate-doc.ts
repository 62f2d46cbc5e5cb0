import type { Hocuspocus } from '@hocuspocus/server';
import { docName } from '../../shared/model/doc-layout.ts';
import { shownTitle } from '../../shared/model/doc-title.ts';
import { pageSource } from '../../shared/page/page-source.ts';
import type { DocRecord, Store } from '../store/store.ts';
import { createDoc, type Writer } from './create-doc.ts';
import { readDocState } from './read-doc.ts';
import { textBlocksJson, textMarkdown } from './text-views.ts';
import { randomId } from '../../shared/model/ids.ts';

/**
 * CAT4: a new document holding what `source` holds now: a text document's Markdown export (a
 * run in review reads as accepted, as in every export), a page's source. Annotations, runs and
 * history stay with the original; the images uploaded into it are copied (IMG3), and the copy's
 * images name the copy's own assets, so that whoever may read the copy sees them. The copy is titled "Copy of TITLE" (the title as shown,
 * CAT1), or has no title when the original has none to show.
 */
export async function duplicateDoc(store: Store, hocuspocus: Hocuspocus, source: DocRecord, maxTitle: number, writer?: Writer): Promise<DocRecord> {
  const name = docName(source.id);
  if (source.kind === 'page') {
    const { title, html } = await readDocState(hocuspocus, store, name, (ydoc) => ({ title: shownTitle(ydoc), html: pageSource(ydoc) }));
    return createDoc(store, { kind: 'page', title: copyTitle(title, maxTitle), html }, Date.now(), undefined, writer);
  }
  const [{ title }, markdown] = await Promise.all([textBlocksJson(hocuspocus, store, name), textMarkdown(hocuspocus, store, name)]);
  const id = randomId(10);
  const copy = await createDoc(store, { kind: 'text', title: copyTitle(title, maxTitle), markdown: withAssetsOf(markdown, source.id, id) }, Date.now(), id, writer);
  await store.assets.copy(source.id, id, copy.createdAt);
  return copy;
}

/** `markdown` with each image address of an asset of document `from` naming document `to` instead. */
function withAssetsOf(markdown: string, from: string, to: string): string {
  return markdown.replaceAll(`](/api/docs/${from}/assets/`, `](/api/docs/${to}/assets/`);
}

function copyTitle(title: string, max: number): string {
  return title ? `Copy of ${title}`.slice(0, max) : '';
}
