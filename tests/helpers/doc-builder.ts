import * as Y from 'yjs';
import type { Node } from 'prosemirror-model';
import { markdownToBlocks, markdownToDoc } from '../../shared/model/markdown.ts';
import { writeInitialContent } from '../../shared/model/doc-content.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { importOrigin } from '../../shared/model/origins.ts';
import { schema } from '../../shared/model/schema.ts';

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

/**
 * A text Y.Doc written by client 100 with one block per Markdown part, ids b0, b1… (the parts
 * are parsed apart: two lists in a row would be one list in Markdown).
 */
export function makeBlocksYDoc(parts: string[]): Y.Doc {
  const blocks = parts.flatMap((part) => markdownToBlocks(part)).map((block, i) => block.type.create({ ...block.attrs, id: `b${i}` }, block.content, block.marks));
  const ydoc = new Y.Doc();
  ydoc.clientID = 100;
  writeInitialContent(ydoc, schema.nodes.doc.create(null, blocks), importOrigin);
  return ydoc;
}

/** A copy of `source` that writes as client `clientID`, as a replica on another device. */
export function replicaOf(source: Y.Doc, clientID: number): Y.Doc {
  const ydoc = new Y.Doc();
  ydoc.clientID = clientID;
  Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(source));
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
