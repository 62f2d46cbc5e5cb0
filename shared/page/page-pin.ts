import * as Y from 'yjs';
import type { PinnedRange } from '../model/anchors.ts';
import { quoteOf } from '../model/anchors.ts';
import { docParts } from '../model/doc-layout.ts';
import { elementRangeInSource, type PageElement } from './page-model.ts';

/** PAGE4: the pin of a note on `element`: its start tag in the `html` Y.Text, its text as quote. */
export function pinElement(ydoc: Y.Doc, element: PageElement): PinnedRange | null {
  const ytext = docParts(ydoc).html;
  const range = elementRangeInSource(ytext.toString(), element.id);
  if (!range) return null;
  return {
    anchor: {
      from: Y.relativePositionToJSON(Y.createRelativePositionFromTypeIndex(ytext, range.from, 0)),
      to: Y.relativePositionToJSON(Y.createRelativePositionFromTypeIndex(ytext, range.to, -1)),
    },
    blockId: element.id,
    quote: quoteOf(element.text),
  };
}
