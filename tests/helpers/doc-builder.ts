import * as Y from 'yjs';
import type { Node } from 'prosemirror-model';
import { markdownToDoc } from '../../shared/model/markdown.ts';
import { writeInitialContent } from '../../shared/model/doc-content.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { importOrigin } from '../../shared/model/origins.ts';

/** A ProseMirror document with block ids, from Markdown. */
export function makeDoc(markdown: string): Node {
  return markdownToDoc(markdown);
}

/** A text Y.Doc holding `markdown`, as a newly created document holds it. */
export function makeYDoc(markdown: string, title = 'Test'): Y.Doc {
  const ydoc = new Y.Doc();
  writeInitialContent(ydoc, makeDoc(markdown), importOrigin);
  ydoc.transact(() => docParts(ydoc).meta.set('title', title), importOrigin);
  return ydoc;
}

/** Appends `text` to the end of the top-level block at `index` of a text Y.Doc. */
export function appendToBlock(ydoc: Y.Doc, index: number, text: string): void {
  const block = docParts(ydoc).content.get(index);
  if (!(block instanceof Y.XmlElement)) throw new RangeError(`No block at ${index}`);
  ydoc.transact(() => {
    const texts = block.toArray().filter((child): child is Y.XmlText => child instanceof Y.XmlText);
    let ytext = texts[texts.length - 1];
    if (!ytext) {
      ytext = new Y.XmlText();
      block.push([ytext]);
    }
    ytext.insert(ytext.length, text);
  });
}

/** Adds a paragraph holding `text` at the end of a text Y.Doc, as an editor would. */
export function appendParagraph(ydoc: Y.Doc, text: string, id = 'p' + Math.random().toString(36).slice(2, 10)): void {
  ydoc.transact(() => {
    const paragraph = new Y.XmlElement('paragraph');
    paragraph.setAttribute('id', id);
    paragraph.insert(0, [new Y.XmlText(text)]);
    docParts(ydoc).content.push([paragraph]);
  });
}
