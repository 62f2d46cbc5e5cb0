import { elementView, parsePage, serializePage, type PageElement } from '../../shared/page/page-model.ts';
import { serverPageTools } from './page-tools.ts';

/** PAGE3: a page's source (sanitized again) and its elements, as the API shows them; parsed once. */
export function readPageView(source: string): { html: string; elements: PageElement[] } {
  const tools = serverPageTools();
  const page = parsePage(tools, source);
  return { html: serializePage(tools, page), elements: Array.from(page.byId.values(), elementView) };
}
