import type * as Y from 'yjs';
import type { PinnedRange, ResolvedAnchor } from '../../shared/model/anchors.ts';
import { parsePage, elementView } from '../../shared/page/page-model.ts';
import { pinElement } from '../../shared/page/page-pin.ts';
import { pageSource } from '../../shared/page/page-source.ts';
import { serverPageTools } from './page-tools.ts';

/** PAGE4: the pin of an annotation on the element `elementId`, or null when the page has no such element. */
export function anchorForElement(ydoc: Y.Doc, elementId: string): PinnedRange | null {
  const element = parsePage(serverPageTools(), pageSource(ydoc)).byId.get(elementId);
  return element ? pinElement(ydoc, elementView(element)) : null;
}

/**
 * The element `elementId` as the page reads now, in the shape of a resolved anchor, so that
 * Send's drift (RUN5) compares an instruction's quote with the element's current text.
 */
export function elementAsPinned(ydoc: Y.Doc, elementId: string): ResolvedAnchor {
  const element = parsePage(serverPageTools(), pageSource(ydoc)).byId.get(elementId);
  return element ? { status: 'attached', from: 0, to: 0, text: elementView(element).text } : { status: 'orphaned', reason: 'deleted' };
}
