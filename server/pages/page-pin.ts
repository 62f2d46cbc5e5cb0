import type * as Y from 'yjs';
import type { PinnedRange, ResolvedAnchor } from '../../shared/model/anchors.ts';
import { pinElement } from '../../shared/page/page-pin.ts';
import { pageSource } from '../../shared/page/page-source.ts';
import { pageElement } from './page-work.ts';

/**
 * PAGE4: the pin of an annotation on the element `elementId`, or null when the page has no such
 * element. `read` reads the page's Y.Doc (twice: the element is read in the work pool from the
 * source as it was, then pinned into the source as it is).
 */
export async function anchorForElement(read: <T>(use: (ydoc: Y.Doc) => T) => Promise<T>, elementId: string): Promise<PinnedRange | null> {
  const element = await pageElement(await read(pageSource), elementId);
  return element ? read((ydoc) => pinElement(ydoc, element)) : null;
}

/**
 * The element `elementId` of the page `source`, in the shape of a resolved anchor, so that
 * Send's drift (RUN5) compares an instruction's quote with the element's current text.
 */
export async function elementAsPinned(source: string, elementId: string): Promise<ResolvedAnchor> {
  const element = await pageElement(source, elementId);
  return element ? { status: 'attached', from: 0, to: 0, text: element.text } : { status: 'orphaned', reason: 'deleted' };
}
