import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as Y from 'yjs';
import { storedTextContent } from '../../server/docs/stored-text-content.ts';
import { encodedNewTextState } from '../../server/docs/new-text-state.ts';
import { importTextState, readTextViews, withTextDoc } from '../../server/docs/read-text-views.ts';
import { projectScratch } from '../../shared/model/doc-content.ts';
import { docParts, readMeta } from '../../shared/model/doc-layout.ts';
import { withoutUnknownBlocks } from '../../shared/model/unknown-content.ts';
import { schema } from '../../shared/model/schema.ts';
import { markdown, unmarkedMarkdown } from '../helpers/markdown-arbitrary.ts';

/*
 * A state new-text-state.ts wrote is read back without a Y.Doc; what it reads must be what
 * y-prosemirror reads from the Y.Doc of that state, and any other state is left to Yjs (null).
 */

const seed = process.env.TANDEM_SEED ? Number(process.env.TANDEM_SEED) : undefined;

/** The same stored bytes, as a logged update after no state: read through a Y.Doc. */
const throughYjs = (state: Uint8Array) => ({ stored: { state: null, updates: [state], lastSeq: 1 } });

describe('a text state read without a Y.Doc (server/docs/stored-text-content.ts)', () => {
  it('[LIMIT10] reads every state the writer wrote as the content and meta y-prosemirror reads from its Y.Doc, and its views are the same', () => {
    let direct = 0;
    fc.assert(
      fc.property(fc.oneof(unmarkedMarkdown, markdown), fc.string({ maxLength: 12 }), (source, title) => {
        const { state } = importTextState({ title, markdown: source });
        const read = storedTextContent(state);
        const viaYjs = withTextDoc({ live: state }, (ydoc) => ({ doc: projectScratch(ydoc), meta: readMeta(ydoc) }));
        if (read !== null) {
          direct++;
          expect(withoutUnknownBlocks(read.content).eq(viaYjs.doc)).toBe(true);
          expect(read.meta).toEqual({ title: viaYjs.meta.title, kind: viaYjs.meta.kind });
        }
        expect(readTextViews({ stored: { state, updates: [], lastSeq: 0 } })).toEqual(readTextViews(throughYjs(state)));
      }),
      { numRuns: 60, seed },
    );
    // Most generated texts have no marks: the positive control that the direct reading is taken.
    expect(direct).toBeGreaterThan(10);
  });

  it('[LIMIT10] reads an import of plain paragraphs, headings, lists and quotes, with its attributes', () => {
    const { state } = importTextState({ title: 'T', markdown: '# Head\n\nplain\n\n> quote\n\n3. three\n4. four\n\n```js\ncode\n```\n\n---' });
    const read = storedTextContent(state);
    expect(read).not.toBeNull();
    expect(read?.content.child(0).attrs.level).toBe(1);
    expect(read?.content.child(3).attrs.order).toBe(3);
    expect(read?.content.child(4).attrs.params).toBe('js');

    const long = 'x'.repeat(100);
    const other = importTextState({ title: 'Café ✓', markdown: `héllo wörld ✓ 😀\n\n${long}\n\n${long}é` }).state;
    const text = storedTextContent(other);
    expect(text?.meta.title).toBe('Café ✓');
    expect(text?.content.textContent).toBe(`héllo wörld ✓ 😀${long}${long}é`);
  });

  it('[SHAPE5] leaves to Yjs a state that was edited, that has more after its end, or that another writer laid out', () => {
    const { state } = importTextState({ title: 'T', markdown: 'one\n\ntwo' });
    expect(storedTextContent(state)).not.toBeNull();

    const ydoc = new Y.Doc();
    Y.applyUpdate(ydoc, state);
    ydoc.clientID = 7;
    docParts(ydoc).meta.set('title', 'Changed');
    expect(storedTextContent(Y.encodeStateAsUpdate(ydoc))).toBeNull();

    expect(storedTextContent(Uint8Array.from([...state, 0]))).toBeNull();
    expect(storedTextContent(state.subarray(0, state.length - 3))).toBeNull();

    // The same content written through Yjs in another order (meta first): the same document, other bytes.
    const other = new Y.Doc();
    other.clientID = 9;
    docParts(other).meta.set('title', 'T');
    docParts(other).meta.set('kind', 'text');
    const paragraph = new Y.XmlElement('paragraph');
    const text = new Y.XmlText();
    text.insert(0, 'one');
    paragraph.insert(0, [text]);
    docParts(other).content.insert(0, [paragraph]);
    expect(storedTextContent(Y.encodeStateAsUpdate(other))).toBeNull();
  });

  it('[SHAPE5] leaves to Yjs an element y-prosemirror cannot make, and its views are those Yjs reads', () => {
    const ydoc = new Y.Doc();
    ydoc.clientID = 3;
    const element = new Y.XmlElement('no_such_block');
    const text = new Y.XmlText();
    text.insert(0, 'x');
    element.insert(0, [text]);
    const paragraph = new Y.XmlElement('paragraph');
    const kept = new Y.XmlText();
    kept.insert(0, 'kept');
    paragraph.insert(0, [kept]);
    docParts(ydoc).content.insert(0, [element, paragraph]);
    docParts(ydoc).meta.set('title', '');
    docParts(ydoc).meta.set('kind', 'text');
    const state = Y.encodeStateAsUpdate(ydoc);
    expect(storedTextContent(state)).toBeNull();
    expect(readTextViews({ stored: { state, updates: [], lastSeq: 0 } })).toEqual(readTextViews(throughYjs(state)));
  });

  it('[SHAPE2] leaves to the shape check a state whose items nest deeper than it allows, and its views are those the check leaves', () => {
    let content = schema.node('paragraph', null, [schema.text('deep')]);
    for (let i = 0; i < 70; i++) content = schema.node('blockquote', null, [content]);
    const state = encodedNewTextState(schema.node('doc', null, [content]), { title: '', kind: 'text' }, 11);
    if (state === null) throw new Error('The writer writes nested quotes.');
    expect(storedTextContent(state)).toBeNull();
    const views = readTextViews({ stored: { state, updates: [], lastSeq: 0 } });
    expect(views).toEqual(readTextViews(throughYjs(state)));
    expect(views.markdown).not.toContain('deep');

    // Within the limit, the same nesting is read directly.
    let shallow = schema.node('paragraph', null, [schema.text('deep')]);
    for (let i = 0; i < 20; i++) shallow = schema.node('blockquote', null, [shallow]);
    const within = encodedNewTextState(schema.node('doc', null, [shallow]), { title: '', kind: 'text' }, 11);
    expect(within && storedTextContent(within)).not.toBeNull();
  });
});
