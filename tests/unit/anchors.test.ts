import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { Node } from 'prosemirror-model';
import { EditorState, TextSelection, type Transaction } from 'prosemirror-state';
import { splitBlock } from 'prosemirror-commands';
import { initProseMirrorDoc, updateYFragment } from 'y-prosemirror';
import {
  anchorAfterUndo,
  anchorForBlock,
  anchorFromRange,
  resolveAnchor,
  resolveAnchors,
  type ProsemirrorMapping,
} from '../../shared/model/anchors.ts';
import { readAnnotations } from '../../shared/notes/annotations.ts';
import { createAnnotation, setAnchor } from '../../shared/notes/annotations-writers.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { changeContent, readProseMirrorDoc, writeInitialContent } from '../../shared/model/doc-content.ts';
import { markdownToDoc } from '../../shared/model/markdown.ts';
import { importOrigin, runOrigin } from '../../shared/model/origins.ts';
import { schema } from '../../shared/model/schema.ts';

function textDoc(markdown: string): Y.Doc {
  const ydoc = new Y.Doc();
  writeInitialContent(ydoc, markdownToDoc(markdown), importOrigin);
  return ydoc;
}

function replicaOf(ydoc: Y.Doc): Y.Doc {
  const copy = new Y.Doc();
  Y.applyUpdate(copy, Y.encodeStateAsUpdate(ydoc));
  return copy;
}

/** The ProseMirror range of the `nth` occurrence of `text` inside one textblock. */
function rangeOf(doc: Node, text: string, nth = 0): { from: number; to: number } {
  const found: number[] = [];
  doc.descendants((node, pos) => {
    if (!node.isTextblock) return true;
    for (let i = node.textContent.indexOf(text); i >= 0; i = node.textContent.indexOf(text, i + 1)) found.push(pos + 1 + i);
    return false;
  });
  if (found[nth] === undefined) throw new Error(`"${text}" not found`);
  return { from: found[nth], to: found[nth] + text.length };
}

function pin(ydoc: Y.Doc, text: string, nth = 0) {
  const { from, to } = rangeOf(readProseMirrorDoc(ydoc), text, nth);
  return anchorFromRange(ydoc, from, to);
}

/** "Hello brave world" with a comment pinned to `brave` in a notes doc of its own. */
function commentOnBrave() {
  const ydoc = textDoc('Hello brave world');
  const notes = new Y.Doc();
  const pinned = pin(ydoc, 'brave');
  const created = createAnnotation(notes, { kind: 'comment', ...pinned, author: { id: 'u1', name: 'Ada' }, text: 'Hm', now: 1 });
  return { ydoc, notes, pinned, created };
}

/** The XmlText of the top-level paragraph at `index`. */
function paragraphText(ydoc: Y.Doc, index: number): Y.XmlText {
  return (docParts(ydoc).content.get(index) as Y.XmlElement).get(0) as Y.XmlText;
}

function textAt(ydoc: Y.Doc, anchor: Parameters<typeof resolveAnchor>[1]): string | null {
  const resolved = resolveAnchor(ydoc, anchor);
  return resolved.status === 'attached' ? resolved.text : null;
}

/** Replaces the text of `ydoc` the way an editor or the applier does: a ProseMirror change, diffed into Yjs. */
function editThroughProseMirror(ydoc: Y.Doc, change: (state: EditorState) => EditorState): void {
  changeContent(ydoc, (doc) => change(EditorState.create({ doc })).doc, runOrigin('edit'));
}

describe('anchorFromRange', () => {
  it('pins a range with its quote and block, from sticking right and to sticking left', () => {
    const ydoc = textDoc('Hello brave world\n\nSecond paragraph');
    const doc = readProseMirrorDoc(ydoc);
    const pinned = pin(ydoc, 'brave');
    expect(pinned.quote).toBe('brave');
    expect(pinned.blockId).toBe(doc.child(0).attrs.id);
    expect(pinned.anchor.from.assoc).toBe(0);
    expect(pinned.anchor.to.assoc).toBe(-1);
    expect(resolveAnchor(ydoc, pinned.anchor)).toEqual({ status: 'attached', ...rangeOf(doc, 'brave'), text: 'brave' });
  });

  it('quotes a range across blocks with a newline between them and names the block of from', () => {
    const ydoc = textDoc('Hello brave world\n\nSecond paragraph');
    const doc = readProseMirrorDoc(ydoc);
    const pinned = anchorFromRange(ydoc, rangeOf(doc, 'world').from, rangeOf(doc, 'Second').to);
    expect(pinned.quote).toBe('world\nSecond');
    expect(pinned.blockId).toBe(doc.child(0).attrs.id);
    expect(textAt(ydoc, pinned.anchor)).toBe('world\nSecond');
  });

  it('cuts a quote longer than 2,000 characters', () => {
    const ydoc = textDoc('x'.repeat(2500));
    const pinned = anchorFromRange(ydoc, 1, 2501);
    expect(pinned.quote).toHaveLength(2000);
    expect(pinned.quote.endsWith('…')).toBe(true);
  });

  it('throws a RangeError for an empty range or one outside the document', () => {
    const ydoc = textDoc('Hello');
    expect(() => anchorFromRange(ydoc, 3, 3)).toThrow(RangeError);
    expect(() => anchorFromRange(ydoc, 4, 2)).toThrow(RangeError);
    expect(() => anchorFromRange(ydoc, 1, 99)).toThrow(RangeError);
  });
});

describe('resolveAnchor keeps the anchor on its words', () => {
  it('when text is inserted before, right at the start, right at the end and after the range', () => {
    const ydoc = textDoc('Hello brave world');
    const { anchor } = pin(ydoc, 'brave');
    const ytext = paragraphText(ydoc, 0);
    ytext.insert(0, 'Oh, ');
    expect(textAt(ydoc, anchor)).toBe('brave');
    ytext.insert(ytext.toString().indexOf('brave'), 'very ');
    expect(textAt(ydoc, anchor)).toBe('brave');
    ytext.insert(ytext.toString().indexOf('brave') + 'brave'.length, 'st');
    expect(textAt(ydoc, anchor)).toBe('brave');
    ytext.insert(ytext.length, '!');
    expect(ytext.toString()).toBe('Oh, Hello very bravest world!');
    expect(resolveAnchor(ydoc, anchor)).toEqual({ status: 'attached', ...rangeOf(readProseMirrorDoc(ydoc), 'brave'), text: 'brave' });
  });

  it('when a person types right at its start or end through ProseMirror', () => {
    const ydoc = textDoc('Hello brave world');
    const { anchor } = pin(ydoc, 'brave');
    editThroughProseMirror(ydoc, (state) => state.apply(state.tr.insertText('X', rangeOf(state.doc, 'brave').from)));
    editThroughProseMirror(ydoc, (state) => state.apply(state.tr.insertText('Y', rangeOf(state.doc, 'brave').to)));
    expect(readProseMirrorDoc(ydoc).textContent).toBe('Hello XbraveY world');
    expect(textAt(ydoc, anchor)).toBe('brave');
  });

  it('and takes in text typed inside the range', () => {
    const ydoc = textDoc('Hello brave world');
    const { anchor } = pin(ydoc, 'brave world');
    paragraphText(ydoc, 0).insert('Hello brave'.length, ' new');
    expect(textAt(ydoc, anchor)).toBe('brave new world');
  });

  it('when blocks are inserted and deleted around it', () => {
    const ydoc = textDoc('First\n\nHello brave world\n\nLast');
    const { anchor } = pin(ydoc, 'brave');
    const content = docParts(ydoc).content;
    content.delete(0, 1);
    const added = new Y.XmlElement('paragraph');
    added.insert(0, [new Y.XmlText('New first')]);
    content.insert(0, [added]);
    content.delete(2, 1);
    expect(readProseMirrorDoc(ydoc).textContent).toBe('New firstHello brave world');
    expect(textAt(ydoc, anchor)).toBe('brave');
  });

  it('in a nested block, through concurrent edits on two replicas', () => {
    const a = textDoc('- one\n- Hello brave world\n\n> quoted brave');
    const { anchor } = pin(a, 'brave', 1);
    const b = replicaOf(a);
    editThroughProseMirror(a, (state) => state.apply(state.tr.insertText('so ', rangeOf(state.doc, 'quoted').from)));
    editThroughProseMirror(b, (state) => state.apply(state.tr.insertText(' and true', rangeOf(state.doc, 'brave', 1).to)));
    Y.applyUpdate(a, Y.encodeStateAsUpdate(b));
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a));
    expect(readProseMirrorDoc(a).child(1).textContent).toBe('so quoted brave and true');
    expect(resolveAnchor(a, anchor)).toEqual(resolveAnchor(b, anchor));
    expect(resolveAnchor(a, anchor)).toEqual({ status: 'attached', ...rangeOf(readProseMirrorDoc(a), 'brave', 1), text: 'brave' });
  });
});

describe('orphaned anchors', () => {
  it('are orphaned when the anchored text is deleted, and the record keeps its quote', () => {
    const { ydoc, notes, pinned, created } = commentOnBrave();
    paragraphText(ydoc, 0).delete('Hello '.length, 'brave'.length);
    expect(resolveAnchor(ydoc, pinned.anchor)).toEqual({ status: 'orphaned', reason: 'deleted' });
    const { annotations } = readAnnotations(notes);
    expect(annotations.map((a) => [a.id, a.quote])).toEqual([[created.ok && created.id, 'brave']]);
  });

  it('are orphaned when their whole block is deleted, live or collected', () => {
    for (const gc of [true, false]) {
      const ydoc = new Y.Doc({ gc });
      writeInitialContent(ydoc, markdownToDoc('Keep\n\nHello brave world'), importOrigin);
      const { anchor } = pin(ydoc, 'brave');
      docParts(ydoc).content.delete(1, 1);
      expect(resolveAnchor(ydoc, anchor)).toEqual({ status: 'orphaned', reason: 'deleted' });
    }
  });

  it('shrink to what is left when only part of the text is deleted', () => {
    const ydoc = textDoc('Hello brave world');
    const { anchor } = pin(ydoc, 'brave world');
    paragraphText(ydoc, 0).delete('Hello '.length, 'brave '.length);
    expect(textAt(ydoc, anchor)).toBe('world');
  });

  it('stay orphaned when text is typed next to the deleted range on another replica', () => {
    const a = textDoc('Hello brave world');
    const { anchor } = pin(a, 'brave');
    const b = replicaOf(a);
    paragraphText(a, 0).delete('Hello '.length, 'brave'.length);
    paragraphText(b, 0).insert('Hello '.length, 'so ');
    paragraphText(b, 0).insert('Hello so brave'.length, '!');
    Y.applyUpdate(a, Y.encodeStateAsUpdate(b));
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a));
    expect(readProseMirrorDoc(a).textContent).toBe('Hello so ! world');
    expect(resolveAnchor(a, anchor)).toEqual({ status: 'orphaned', reason: 'deleted' });
    expect(resolveAnchor(b, anchor)).toEqual({ status: 'orphaned', reason: 'deleted' });
  });

  it('are reported as not synced, not deleted, on a replica that lacks the anchored text', () => {
    const a = textDoc('Hello world');
    const b = replicaOf(a);
    paragraphText(a, 0).insert('Hello '.length, 'brave ');
    const { anchor } = pin(a, 'brave');
    expect(resolveAnchor(b, anchor)).toEqual({ status: 'orphaned', reason: 'not-synced' });
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a));
    expect(textAt(b, anchor)).toBe('brave');
  });
});

describe('overlapping anchors', () => {
  it('resolve independently through insertions and deletions in their overlap', () => {
    const ydoc = textDoc('the brave new world');
    const left = pin(ydoc, 'brave new').anchor;
    const right = pin(ydoc, 'new world').anchor;
    const inner = pin(ydoc, 'new').anchor;
    const ytext = paragraphText(ydoc, 0);
    ytext.insert('the brave n'.length, 'EW');
    expect(resolveAnchors(ydoc, [left, right, inner]).map((r) => r.status === 'attached' && r.text)).toEqual([
      'brave nEWew',
      'nEWew world',
      'nEWew',
    ]);
    ytext.delete('the brave '.length, 'nEWew'.length);
    expect(resolveAnchors(ydoc, [left, right, inner]).map((r) => (r.status === 'attached' ? r.text : r.status))).toEqual([
      'brave ',
      ' world',
      'orphaned',
    ]);
  });
});

describe('anchorForBlock', () => {
  it('pins a whole block, including text typed at its edges, and not blocks added around it', () => {
    const ydoc = textDoc('First\n\nHello brave world\n\nLast');
    const blockId = readProseMirrorDoc(ydoc).child(1).attrs.id as string;
    const pinned = anchorForBlock(ydoc, blockId);
    expect(pinned).toMatchObject({ quote: 'Hello brave world', blockId });
    const ytext = paragraphText(ydoc, 1);
    ytext.insert(0, '> ');
    ytext.insert(ytext.length, ' <');
    editThroughProseMirror(ydoc, (state) =>
      state.apply(state.tr.insert(rangeOf(state.doc, 'Last').from - 1, schema.nodes.paragraph.create({ id: 'bnew' }, schema.text('New')))),
    );
    expect(readProseMirrorDoc(ydoc).textContent).toBe('First> Hello brave world <NewLast');
    expect(textAt(ydoc, pinned!.anchor)).toBe('> Hello brave world <');
  });

  it('stays attached to a block whose text is emptied and is orphaned when the block goes', () => {
    const ydoc = textDoc('First\n\nHello');
    const blockId = readProseMirrorDoc(ydoc).child(1).attrs.id as string;
    const { anchor } = anchorForBlock(ydoc, blockId)!;
    paragraphText(ydoc, 1).delete(0, 5);
    expect(resolveAnchor(ydoc, anchor)).toEqual({ status: 'attached', from: 7, to: 9, text: '' });
    docParts(ydoc).content.delete(1, 1);
    expect(resolveAnchor(ydoc, anchor)).toEqual({ status: 'orphaned', reason: 'deleted' });
  });

  it('returns null for a block that does not exist', () => {
    expect(anchorForBlock(textDoc('Hello'), 'bnosuchblk')).toBeNull();
  });
});

describe('with the editor binding mapping', () => {
  it('works on the live Y.Doc and answers positions of the editor document', () => {
    const ydoc = textDoc('Hello brave world');
    // Stands in for ySyncPluginKey.getState(state).binding.mapping: built from the same Y.Doc
    // and kept current by updateYFragment, as the binding does for local edits.
    const projected = initProseMirrorDoc(docParts(ydoc).content, schema);
    const mapping = projected.mapping as ProsemirrorMapping;
    const meta = { mapping, isOMark: new Map() };
    let state = EditorState.create({ doc: projected.doc });
    const pinned = anchorFromRange(ydoc, 7, 12, mapping);
    expect(pinned).toEqual(anchorFromRange(ydoc, 7, 12));
    state = state.apply(state.tr.insertText('Oh ', 1));
    ydoc.transact(() => updateYFragment(ydoc, docParts(ydoc).content, state.doc, meta));
    const resolved = resolveAnchor(ydoc, pinned.anchor, mapping);
    expect(resolved).toEqual({ status: 'attached', from: 10, to: 15, text: 'brave' });
    expect(resolved.status === 'attached' && state.doc.textBetween(resolved.from, resolved.to)).toBe('brave');
  });
});

describe('known limits of y-prosemirror that the editor must work around', () => {
  it('orphans an anchor in the tail of a paragraph split through ProseMirror, which re-anchoring by mapping repairs', () => {
    const { ydoc, notes, pinned, created } = commentOnBrave();
    const before = resolveAnchor(ydoc, pinned.anchor);
    let tr: Transaction | undefined;
    changeContent(
      ydoc,
      (doc) => {
        const state = EditorState.create({ doc, selection: TextSelection.create(doc, 3) });
        splitBlock(state, (split) => (tr = split));
        return tr!.doc;
      },
      runOrigin('typing'),
    );
    if (!tr) throw new Error('setup');
    expect(resolveAnchor(ydoc, pinned.anchor)).toEqual({ status: 'orphaned', reason: 'deleted' });

    if (before.status !== 'attached' || !created.ok) throw new Error('setup');
    const repinned = anchorFromRange(ydoc, tr.mapping.map(before.from, 1), tr.mapping.map(before.to, -1));
    expect(setAnchor(notes, created.id, repinned)).toEqual({ ok: true });
    expect(textAt(ydoc, readAnnotations(notes).annotations[0].anchor)).toBe('brave');
  });

  it('takes text into the range when it is typed before it through ProseMirror and repeats its first letter', () => {
    const ydoc = textDoc('Hello brave world');
    const { anchor } = pin(ydoc, 'brave');
    editThroughProseMirror(ydoc, (state) => state.apply(state.tr.insertText('b', rangeOf(state.doc, 'brave').from)));
    expect(textAt(ydoc, anchor)).toBe('bbrave');
  });

  // Without a mapping, a paragraph whose Y.XmlText was emptied never equals its ProseMirror
  // twin, and the diff would rewrite the block before it; changeContent seeds the mapping.
  it('keeps an anchor when changeContent inserts a block before it and a later paragraph was emptied', () => {
    const ydoc = textDoc('Hello brave world\n\nGone');
    const { anchor } = pin(ydoc, 'brave');
    paragraphText(ydoc, 1).delete(0, 'Gone'.length);
    editThroughProseMirror(ydoc, (state) => state.apply(state.tr.insert(0, schema.nodes.paragraph.create({ id: 'bnew' }))));
    expect(readProseMirrorDoc(ydoc).textContent).toBe('Hello brave world');
    expect(textAt(ydoc, anchor)).toBe('brave');
  });

  it('orphans an anchor whose deleted text an undo brought back, except where anchorAfterUndo re-pins it', () => {
    const server = textDoc('Alpha beta gamma\n\nOther');
    const { anchor } = pin(server, 'beta');
    const run = runOrigin('r1');
    const undo = new Y.UndoManager(docParts(server).content, { trackedOrigins: new Set([run]) });
    server.transact(() => paragraphText(server, 0).delete(0, 'Alpha beta '.length), run);
    undo.undo();
    const peer = replicaOf(server);
    expect(readProseMirrorDoc(peer).textContent).toBe('Alpha beta gammaOther');
    expect(resolveAnchor(peer, anchor)).toEqual({ status: 'orphaned', reason: 'deleted' });

    const repaired = anchorAfterUndo(server, anchor);
    expect(repaired).not.toBeNull();
    expect(textAt(peer, repaired!)).toBe('beta');
    expect(anchorAfterUndo(server, repaired!)).toBeNull();
  });

  it('re-pins through an undo that brings a whole deleted block back', () => {
    const server = textDoc('Alpha beta gamma\n\nOther');
    const { anchor } = pin(server, 'beta');
    const run = runOrigin('r1');
    const undo = new Y.UndoManager(docParts(server).content, { trackedOrigins: new Set([run]) });
    server.transact(() => docParts(server).content.delete(0, 1), run);
    undo.undo();
    const repaired = anchorAfterUndo(server, anchor);
    expect(textAt(replicaOf(server), repaired!)).toBe('beta');
  });
});
