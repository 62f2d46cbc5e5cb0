import { elementView, parsePage, serializePage, type PageElement } from '../../shared/page/page-model.ts';
import { serverPageTools } from './page-tools.ts';

/**
 * PAGE3: a page's source (sanitized again) and its elements, as the API shows them; parsed once.
 * The elements come as JSON text too, written here in the work thread, which the answers carry
 * as it is (server/raw-json.ts): writing 20,000 of them would cost the event loop.
 */
export function readPageView(source: string): { html: string; elements: PageElement[]; elementsJson: string } {
  const tools = serverPageTools();
  const page = parsePage(tools, source);
  const elements = Array.from(page.byId.values(), elementView);
  return { html: serializePage(tools, page), elements, elementsJson: JSON.stringify(elements) };
}
