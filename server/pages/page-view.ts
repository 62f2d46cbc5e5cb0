import type * as Y from 'yjs';
import { parsePage, readElements, serializePage, type PageElement } from '../../shared/page/page-model.ts';
import { pageSource } from '../../shared/page/page-source.ts';
import { serverPageTools } from './page-tools.ts';

/** PAGE3: a page's source (sanitized again) and its elements, as the API shows them. */
export function readPageView(ydoc: Y.Doc): { html: string; elements: PageElement[] } {
  const tools = serverPageTools();
  const source = pageSource(ydoc);
  return { html: serializePage(tools, parsePage(tools, source)), elements: readElements(tools, source) };
}
