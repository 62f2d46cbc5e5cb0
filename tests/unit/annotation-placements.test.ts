import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { EditorState, TextSelection, type Transaction } from 'prosemirror-state';
import type { Node } from 'prosemirror-model';
import type { DecorationSet } from 'prosemirror-view';
import { ySyncPluginKey } from 'y-prosemirror';
import { schema } from '../../shared/model/schema.ts';
import type { Annotation } from '../../shared/notes/annotations.ts';
import type { Anchor } from '../../shared/model/anchors.ts';
import { annotationsKey, annotationsPlugin, placedKey, setAnnotationsTr, type Placed, type Placement } from '../../client/annotation-plugin.ts';
import { AnnotationPlacer } from '../../client/annotation-placer.ts';

const { nodes } = schema;

function comment(id: string): Annotation {
  const anchor = { start: null, end: null } as unknown as Anchor;
  const author = { id: 'ann', name: 'Ann' };
  return { id, kind: 'comment', anchor, blockId: 'b0', quote: 'q', author, createdAt: 1, turns: [{ author, text: 't', createdAt: 1 }], resolved: false } as unknown as Annotation;
}

function doc(): Node {
  return nodes.doc.create(null, [0, 1, 2].map((index) => nodes.paragraph.create({ id: `b${index}` }, schema.text(`Paragraph number ${index}.`))));
}

/** A state whose plugin counts every anchor resolution it asks for. */
function setup() {
  const calls = { resolve: 0 };
  const plugin = annotationsPlugin({
    resolve: (_state, anchors) => {
      calls.resolve += 1;
      return anchors.map(() => ({ status: 'orphaned', reason: 'not-synced' }) as Placement);
    },
    pin: () => null,
    repin: () => {},
  });
  const state = EditorState.create({ doc: doc(), plugins: [plugin] });
  return { state, calls };
}

const placed = (entries: [string, Placement][]): Placed => ({ placements: new Map(entries), draft: null });

function describeSet(set: DecorationSet | undefined): string[] {
  return (set?.find() ?? []).map((each) => `${each.from}-${each.to}`).sort();
}

function typeAt(state: EditorState, pos: number, text: string): EditorState {
  const tr: Transaction = state.tr.setSelection(TextSelection.create(state.doc, pos)).insertText(text);
  return state.apply(tr);
}

describe('annotation placements', () => {
  it('takes the placements a transaction carries and resolves no anchor in apply', () => {
    const { state, calls } = setup();
    const tr = setAnnotationsTr(state.tr, [comment('c1'), comment('c2')]).setMeta(
      placedKey,
      placed([
        ['c1', { status: 'attached', from: 1, to: 10 }],
        ['c2', { status: 'orphaned', reason: 'deleted' }],
      ]),
    );
    const next = annotationsKey.getState(state.apply(tr))!;
    expect(next.placements.get('c1')).toEqual({ status: 'attached', from: 1, to: 10 });
    expect(describeSet(next.decorations)).toEqual(['1-10']);
    expect(calls.resolve).toBe(0);
  });

  it('maps the highlights through local typing as the placements map, without resolving anchors', () => {
    const { state, calls } = setup();
    let current = state.apply(
      setAnnotationsTr(state.tr, [comment('c1')]).setMeta(placedKey, placed([['c1', { status: 'attached', from: 3, to: 12 }]])),
    );
    current = typeAt(current, 1, 'ab');
    current = typeAt(current, 8, 'xyz');
    const after = annotationsKey.getState(current)!;
    expect(after.placements.get('c1')).toEqual({ status: 'attached', from: 5, to: 17 });
    expect(describeSet(after.decorations)).toEqual(['5-17']);
    expect(after.mapped).toBe(true);
    expect(calls.resolve).toBe(0);
  });

  it('drops a highlight whose text is deleted locally, as its placement is orphaned', () => {
    const { state } = setup();
    let current = state.apply(
      setAnnotationsTr(state.tr, [comment('c1')]).setMeta(placedKey, placed([['c1', { status: 'attached', from: 3, to: 6 }]])),
    );
    current = current.apply(current.tr.delete(2, 8));
    const after = annotationsKey.getState(current)!;
    expect(after.placements.get('c1')).toEqual({ status: 'orphaned', reason: 'deleted' });
    expect(describeSet(after.decorations)).toEqual([]);
  });
});

describe('annotation placer', () => {
  const ydoc = new Y.Doc();
  const placer = new AnnotationPlacer(ydoc);

  it('adds placements to a transaction that brings text from Yjs, and to new annotations', () => {
    const { state } = setup();
    const withNotes = state.apply(setAnnotationsTr(state.tr, [comment('c1')]));
    const fromYjs = withNotes.tr.insertText('x', 2).setMeta(ySyncPluginKey, { isChangeOrigin: true });
    expect((placer.place(fromYjs, withNotes).getMeta(placedKey) as Placed).placements.get('c1')).toEqual({
      status: 'orphaned',
      reason: 'not-synced',
    });
    const notes = setAnnotationsTr(withNotes.tr, [comment('c1'), comment('c2')]);
    expect([...(placer.place(notes, withNotes).getMeta(placedKey) as Placed).placements.keys()]).toEqual(['c1', 'c2']);
  });

  it('leaves a local edit to be mapped', () => {
    const { state } = setup();
    const withNotes = state.apply(setAnnotationsTr(state.tr, [comment('c1')]));
    expect(placer.place(withNotes.tr.insertText('x', 2), withNotes).getMeta(placedKey)).toBeUndefined();
  });
});
