import * as Y from 'yjs';
import type { Anchor, ResolvedAnchor } from '../../shared/model/anchors.ts';
import { quoteOf } from '../../shared/model/anchors.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { parsePage, elementView, elementRangeInSource } from '../../shared/page/page-model.ts';
import { pageSource } from '../../shared/page/page-source.ts';
import { serverPageTools } from './page-tools.ts';

/**
 * PAGE4: where an annotation on the element `elementId` is pinned: its start tag in the `html`
 * Y.Text, its text as the quote; null when the page has no such element.
 */
export function anchorForElement(ydoc: Y.Doc, elementId: string): { anchor: Anchor; blockId: string; quote: string } | null {
  const source = pageSource(ydoc);
  const element = parsePage(serverPageTools(), source).byId.get(elementId);
  const range = element ? elementRangeInSource(source, elementId) : null;
  if (!element || !range) return null;
  const ytext = docParts(ydoc).html;
  return {
    anchor: {
      from: Y.relativePositionToJSON(Y.createRelativePositionFromTypeIndex(ytext, range.from, 0)),
      to: Y.relativePositionToJSON(Y.createRelativePositionFromTypeIndex(ytext, range.to, -1)),
    },
    blockId: elementId,
    quote: quoteOf(elementView(element).text),
  };
}

/**
 * The element `elementId` as the page reads now, in the shape of a resolved anchor, so that
 * Send's drift (RUN5) compares an instruction's quote with the element's current text.
 */
export function elementAsPinned(ydoc: Y.Doc, elementId: string): ResolvedAnchor {
  const element = parsePage(serverPageTools(), pageSource(ydoc)).byId.get(elementId);
  return element ? { status: 'attached', from: 0, to: 0, text: elementView(element).text } : { status: 'orphaned', reason: 'deleted' };
}
