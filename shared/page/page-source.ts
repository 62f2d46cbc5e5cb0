import type * as Y from 'yjs';
import { docParts } from '../model/doc-layout.ts';
import { randomId } from '../model/ids.ts';
import type { Origin } from '../model/origins.ts';
import { textDiff } from '../applier/text-diff.ts';

/** A fresh element id (PAGE1). */
export const newElementId = (): string => 'e' + randomId(9);

/** The page's source as the `html` Y.Text holds it now (raw: sanitize before use). */
export function pageSource(ydoc: Y.Doc): string {
  return docParts(ydoc).html.toString();
}

/**
 * PAGE8: makes the `html` Y.Text read `next`, as one transaction with `origin`, by the smallest
 * character diff: the characters both share stay the same Yjs items, so anchors into the source
 * and edits people made elsewhere in it survive. The server passes a typed origin (a run's);
 * a person's code view passes an object of its own, to tell its writes from others' (as
 * y-prosemirror does for the text).
 */
export function writePageSource(ydoc: Y.Doc, next: string, origin: Origin | object): void {
  const ytext = docParts(ydoc).html;
  const current = ytext.toString();
  if (current === next) return;
  ydoc.transact(() => {
    let at = 0;
    for (const { kind, text } of textDiff(current, next)) {
      if (kind === 'removed') ytext.delete(at, text.length);
      else {
        if (kind === 'added') ytext.insert(at, text);
        at += text.length;
      }
    }
  }, origin);
}
