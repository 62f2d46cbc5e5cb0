import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { Node } from 'prosemirror-model';
import { anchorForBlock, anchorFromRange } from '../../shared/model/anchors.ts';
import { maxQuoteLength } from '../../shared/notes/annotations.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { readProseMirrorDoc, writeInitialContent } from '../../shared/model/doc-content.ts';
import { detectDrift, driftOf } from '../../shared/notes/drift.ts';
import { markdownToDoc } from '../../shared/model/markdown.ts';
import { importOrigin } from '../../shared/model/origins.ts';

/* Drift (shared/PROTOCOL.md RUN5): pinned text that changed between pinning and Send. */

function textDoc(markdown: string): Y.Doc {
  const ydoc = new Y.Doc();
  writeInitialContent(ydoc, markdownToDoc(markdown), importOrigin);
  return ydoc;
}

function pin(ydoc: Y.Doc, text: string) {
  const doc: Node = readProseMirrorDoc(ydoc);
  let from = -1;
  doc.descendants((node, pos) => {
    if (from < 0 && node.isTextblock && node.textContent.includes(text)) from = pos + 1 + node.textContent.indexOf(text);
    return from < 0;
  });
  return anchorFromRange(ydoc, from, from + text.length);
}

/** The XmlText of the first paragraph. */
const firstText = (ydoc: Y.Doc) => (docParts(ydoc).content.get(0) as Y.XmlElement).get(0) as Y.XmlText;

describe('detectDrift', () => {
  it('[RUN5] finds no drift while the pinned text reads as it did, whatever is typed around it', () => {
    const ydoc = textDoc('The quick brown fox jumps.');
    const pinned = pin(ydoc, 'brown fox');
    firstText(ydoc).insert(0, 'Oh, ');
    firstText(ydoc).insert(firstText(ydoc).length, ' Twice.');
    expect(detectDrift(ydoc, [pinned])).toEqual([null]);
  });

  it('[RUN5] tells what the pinned text was and what it is now when it was edited', () => {
    const ydoc = textDoc('The quick brown fox jumps.');
    const pinned = pin(ydoc, 'brown fox');
    const at = 'The quick brown '.length;
    firstText(ydoc).insert(at, 'old ');
    expect(detectDrift(ydoc, [pinned])).toEqual([{ was: 'brown fox', now: 'brown old fox' }]);
  });

  it('[RUN5] tells that the pinned text was deleted', () => {
    const ydoc = textDoc('The quick brown fox jumps.');
    const pinned = pin(ydoc, 'brown fox');
    firstText(ydoc).delete('The quick '.length, 'brown fox'.length);
    expect(detectDrift(ydoc, [pinned])).toEqual([{ was: 'brown fox', now: null }]);
  });

  it('[RUN5] compares a long text as its quote, cut at the quote’s length', () => {
    const ydoc = textDoc('x'.repeat(maxQuoteLength + 500));
    const pinned = anchorForBlock(ydoc, readProseMirrorDoc(ydoc).child(0).attrs.id)!;
    expect(pinned.quote).toHaveLength(maxQuoteLength);
    expect(detectDrift(ydoc, [pinned])).toEqual([null]);
    firstText(ydoc).insert(0, 'y');
    expect(detectDrift(ydoc, [pinned])[0]?.now).toBe('y' + 'x'.repeat(maxQuoteLength - 2) + '…');
  });

  it('[RUN5] does not call text this replica has not received drift', () => {
    expect(driftOf('brown fox', { status: 'orphaned', reason: 'not-synced' })).toBeNull();
    expect(driftOf('brown fox', { status: 'orphaned', reason: 'deleted' })).toEqual({ was: 'brown fox', now: null });
  });
});
