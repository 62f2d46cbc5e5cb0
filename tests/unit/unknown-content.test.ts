import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { Fragment } from 'prosemirror-model';
import { initProseMirrorDoc } from 'y-prosemirror';
import { schema } from '../../shared/model/schema.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { changeContent } from '../../shared/model/doc-content.ts';
import { docToMarkdown } from '../../shared/model/markdown.ts';
import { unknownBlockName, unreadableChange, unreadableContent } from '../../shared/model/unknown-content.ts';
import { serverOrigin } from '../../shared/model/origins.ts';

/** A text of two paragraphs around a `callout` element, as a newer build would write one. */
function docWithTable(): Y.Doc {
  const ydoc = new Y.Doc();
  const content = docParts(ydoc).content;
  const paragraph = (id: string, text: string) => {
    const element = new Y.XmlElement('paragraph');
    element.setAttribute('id', id);
    element.insert(0, [new Y.XmlText(text)]);
    return element;
  };
  const table = new Y.XmlElement('callout');
  table.setAttribute('id', 'bTable');
  const row = new Y.XmlElement('callout_row');
  const cell = new Y.XmlElement('callout_cell');
  cell.setAttribute('align', 'left');
  cell.insert(0, [paragraph('inner', 'Cell')]);
  row.insert(0, [cell]);
  table.insert(0, [row]);
  content.insert(0, [paragraph('b1', 'Before'), table, paragraph('b2', 'After')]);
  return ydoc;
}

describe('content of a newer build', () => {
  it('[VER6] is held whole as an unknown_block while the text beside it is changed through y-prosemirror', () => {
    const ydoc = docWithTable();
    const table = docParts(ydoc).content.get(1) as Y.XmlElement;
    const before = table.toString();

    const { doc } = initProseMirrorDoc(docParts(ydoc).content, schema);
    expect(doc.child(1).type.name).toBe(unknownBlockName);
    expect(doc.child(1).attrs).toMatchObject({ name: 'callout', id: 'bTable' });

    // Typing in the paragraphs on both sides, as an editor's binding writes it.
    changeContent(
      ydoc,
      (current) => {
        const typed = (index: number, text: string) => current.child(index).copy(Fragment.from(schema.text(text)));
        return current.copy(Fragment.fromArray([typed(0, 'Before, typed'), current.child(1), typed(2, 'After, typed')]));
      },
      serverOrigin,
    );

    const content = docParts(ydoc).content;
    expect(content.length).toBe(3);
    expect(content.get(1)).toBe(table);
    expect(table.toString()).toBe(before);
    expect((content.get(0) as Y.XmlElement).toString()).toContain('Before, typed');
    expect(docToMarkdown(initProseMirrorDoc(content, schema).doc)).toBe('Before, typed\n\nAfter, typed');
  });

  it('[VER7] finds what the schema cannot hold faithfully, and nothing in what it can', () => {
    expect(unreadableContent(docWithTable().getXmlFragment('content'), schema)).toBeNull();

    /** The child at `path` (indices from the fragment down). */
    const at = (content: Y.XmlFragment, ...path: number[]) => path.reduce<Y.XmlFragment | Y.XmlText>((type, index) => (type as Y.XmlFragment).get(index) as Y.XmlElement | Y.XmlText, content);
    const firstText = (content: Y.XmlFragment) => at(content, 0, 0) as Y.XmlText;
    const cases: [string, (content: Y.XmlFragment) => void][] = [
      ['a mark "highlight"', (content) => firstText(content).format(0, 3, { highlight: { color: 'red' } })],
      ['an attribute "align" of "paragraph"', (content) => (at(content, 0) as Y.XmlElement).setAttribute('align', 'center')],
      ['an attribute "rel" of the mark "link"', (content) => firstText(content).format(0, 3, { link: { href: 'https://example.com', rel: 'x' } })],
      ['an element "mention" inside "paragraph"', (content) => (at(content, 0) as Y.XmlElement).insert(1, [new Y.XmlElement('mention')])],
      // Inside the held table: y-prosemirror builds its children before dropping them.
      ['a mark "highlight"', (content) => (at(content, 1, 0, 0, 0, 0) as Y.XmlText).format(0, 2, { highlight: {} })],
    ];
    for (const [reason, write] of cases) {
      const ydoc = docWithTable();
      write(docParts(ydoc).content);
      expect(unreadableContent(docParts(ydoc).content, schema)).toBe(reason);

      // The same write arriving as a remote update is found in its transaction alone.
      const base = docWithTable();
      const local = new Y.Doc();
      const peer = new Y.Doc();
      Y.applyUpdate(local, Y.encodeStateAsUpdate(base));
      Y.applyUpdate(peer, Y.encodeStateAsUpdate(base));
      const found: (string | null)[] = [];
      local.on('beforeObserverCalls', (transaction: Y.Transaction) => found.push(unreadableChange(transaction, docParts(local).content, schema)));
      const stateBefore = Y.encodeStateVector(peer);
      write(docParts(peer).content);
      Y.applyUpdate(local, Y.encodeStateAsUpdate(peer, stateBefore));
      expect(found, reason).toContain(reason);
    }
  });

  it('[VER7] finds nothing in a change of readable content', () => {
    const ydoc = docWithTable();
    const peer = new Y.Doc();
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(ydoc));
    const found: (string | null)[] = [];
    ydoc.on('beforeObserverCalls', (transaction: Y.Transaction) => found.push(unreadableChange(transaction, docParts(ydoc).content, schema)));
    const stateBefore = Y.encodeStateVector(peer);
    const first = docParts(peer).content.get(0) as Y.XmlElement;
    (first.get(0) as Y.XmlText).insert(6, ' more', { strong: true });
    const added = new Y.XmlElement('heading');
    added.setAttribute('level', 2 as unknown as string);
    docParts(peer).content.insert(3, [added]);
    Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(peer, stateBefore));
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((reason) => reason === null)).toBe(true);
  });
});
