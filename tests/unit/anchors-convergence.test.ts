import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as Y from 'yjs';
import type { Node } from 'prosemirror-model';
import { EditorState } from 'prosemirror-state';
import { initProseMirrorDoc, updateYFragment } from 'y-prosemirror';
import { anchorFromRange, resolveAnchor, type Anchor, type ProsemirrorMapping } from '../../shared/model/anchors.ts';
import { readAnnotations } from '../../shared/notes/annotations.ts';
import { createAnnotation } from '../../shared/notes/annotations-writers.ts';
import { docParts, type AnyYType } from '../../shared/model/doc-layout.ts';
import { readProseMirrorDoc, writeInitialContent } from '../../shared/model/doc-content.ts';
import { markdownToDoc } from '../../shared/model/markdown.ts';
import { importOrigin, runOrigin } from '../../shared/model/origins.ts';
import { schema } from '../../shared/model/schema.ts';

/*
 * Convergence of anchors: three replicas of a text Y.Doc pin one word, edit concurrently, exchange
 * their updates in a random order, and must end identical with the anchor on the same word (or,
 * when the word was deleted, orphaned everywhere and still listed). fast-check prints the seed
 * and the shrunk counterexample of a failure; replay with `fc.assert(..., {seed, path})`.
 *
 * ProseMirror edits go the way the editor's binding sends them: a transaction diffed into Yjs by
 * updateYFragment against the binding's mapping (built here with initProseMirrorDoc on the replica
 * itself; the content stays schema-valid, so that projection changes nothing).
 *
 * Words are made of `a` and `b` so that neighbours repeat letters. Text typed through ProseMirror
 * uses other letters: y-prosemirror diffs text prefix-first, so typing the anchored word's first
 * letter right before it would legitimately grow the range (see anchors.test.ts).
 */

const replicaCount = 3;
const editOrigin = runOrigin('property');
const remote = Symbol('remote');

type Edit =
  | { kind: 'yInsert'; at: number; offset: number; text: string }
  | { kind: 'yDelete'; at: number; offset: number; length: number }
  | { kind: 'pmInsert'; at: number; text: string }
  | { kind: 'pmParagraph'; at: number; text: string }
  | { kind: 'yDeleteBlock'; at: number };

const word = fc.stringMatching(/^[ab]{1,4}$/);
const block = fc.record({ list: fc.boolean(), words: fc.array(word, { minLength: 1, maxLength: 5 }) });
const markdown = fc
  .array(block, { minLength: 1, maxLength: 4 })
  .map((blocks) => blocks.map((b) => (b.list ? '- ' : '') + b.words.join(' ')).join('\n\n'));

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('yInsert' as const), at: fc.nat(), offset: fc.nat(), text: fc.stringMatching(/^[abX ]{1,4}$/) }),
  fc.record({ kind: fc.constant('yDelete' as const), at: fc.nat(), offset: fc.nat(), length: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('pmInsert' as const), at: fc.nat(), text: fc.stringMatching(/^[XY ]{1,4}$/) }),
  fc.record({ kind: fc.constant('pmParagraph' as const), at: fc.nat(), text: fc.stringMatching(/^[abXY ]{0,4}$/) }),
  fc.record({ kind: fc.constant('yDeleteBlock' as const), at: fc.nat() }),
);

const edits = fc.array(fc.array(edit, { maxLength: 6 }), { minLength: replicaCount, maxLength: replicaCount });

/** Where the anchored word lies in Yjs on one replica: its XmlText, [start, end) and top-level block. */
function locate(ydoc: Y.Doc, anchor: Anchor) {
  const from = Y.createAbsolutePositionFromRelativePosition(Y.createRelativePositionFromJSON(anchor.from), ydoc);
  const to = Y.createAbsolutePositionFromRelativePosition(Y.createRelativePositionFromJSON(anchor.to), ydoc);
  if (!from || !to || !(from.type instanceof Y.XmlText) || from.type !== to.type) throw new Error('the word left its text');
  let top: AnyYType = from.type;
  while (top.parent !== docParts(ydoc).content) top = top.parent as AnyYType;
  return { ytext: from.type, start: from.index, end: to.index, top };
}

function xmlTexts(ydoc: Y.Doc): Y.XmlText[] {
  const found: Y.XmlText[] = [];
  const walk = (node: Y.XmlElement | Y.XmlFragment | Y.XmlText) => {
    if (node instanceof Y.XmlText) found.push(node);
    else node.toArray().forEach((child) => walk(child as Y.XmlElement | Y.XmlText));
  };
  walk(docParts(ydoc).content);
  return found;
}

function textblockPositions(doc: Node): number[] {
  const positions: number[] = [];
  doc.descendants((node, pos) => {
    if (!node.isTextblock) return true;
    for (let i = 0; i <= node.content.size; i++) positions.push(pos + 1 + i);
    return false;
  });
  return positions;
}

/** Applies `edit` on one replica, steering it clear of the anchored word. */
function applyEdit(ydoc: Y.Doc, anchor: Anchor, edit: Edit, serial: string): void {
  const { ytext: wordText, start, end, top } = locate(ydoc, anchor);
  if (edit.kind === 'yInsert' || edit.kind === 'yDelete') {
    const texts = xmlTexts(ydoc);
    const ytext = texts[edit.at % texts.length];
    let offset = edit.offset % (ytext.length + 1);
    if (edit.kind === 'yInsert') {
      if (ytext === wordText && offset > start && offset < end) offset = start;
      ydoc.transact(() => ytext.insert(offset, edit.text), editOrigin);
      return;
    }
    const deleteEnd = Math.min(ytext.length, offset + edit.length);
    ydoc.transact(() => {
      if (ytext !== wordText) ytext.delete(offset, deleteEnd - offset);
      else {
        if (deleteEnd > end) ytext.delete(Math.max(offset, end), deleteEnd - Math.max(offset, end));
        if (offset < start) ytext.delete(offset, Math.min(deleteEnd, start) - offset);
      }
    }, editOrigin);
    return;
  }
  if (edit.kind === 'yDeleteBlock') {
    const content = docParts(ydoc).content;
    const index = edit.at % content.length;
    if (content.get(index) !== top) ydoc.transact(() => content.delete(index, 1), editOrigin);
    return;
  }
  const { doc, mapping } = initProseMirrorDoc(docParts(ydoc).content, schema);
  const resolved = resolveAnchor(ydoc, anchor, mapping as ProsemirrorMapping);
  if (resolved.status !== 'attached') throw new Error('the word is not attached before an edit');
  const tr = EditorState.create({ doc }).tr;
  if (edit.kind === 'pmInsert') {
    const positions = textblockPositions(doc).filter((p) => p <= resolved.from || p >= resolved.to);
    tr.insertText(edit.text, positions[edit.at % positions.length]);
  } else {
    const boundaries: number[] = [];
    doc.forEach((_block, offset) => boundaries.push(offset));
    boundaries.push(doc.content.size);
    const paragraph = schema.nodes.paragraph.create({ id: `bnew${serial}` }, edit.text ? schema.text(edit.text) : null);
    tr.insert(boundaries[edit.at % boundaries.length], paragraph);
  }
  ydoc.transact(() => updateYFragment(ydoc, docParts(ydoc).content, tr.doc, { mapping, isOMark: new Map() }), editOrigin);
}

interface World {
  replicas: Y.Doc[];
  notes: Y.Doc[];
  anchor: Anchor;
  quote: string;
  annotationId: string;
  outbox: { from: number; update: Uint8Array }[];
}

/** N replicas of one text and one notes doc, with an annotation on the `pick`-th word. */
function setUp(md: string, pick: number): World {
  const base = new Y.Doc();
  writeInitialContent(base, markdownToDoc(md), importOrigin);
  const replicas = Array.from({ length: replicaCount }, () => {
    const replica = new Y.Doc();
    Y.applyUpdate(replica, Y.encodeStateAsUpdate(base));
    return replica;
  });
  const words: { from: number; to: number }[] = [];
  readProseMirrorDoc(replicas[0]).descendants((node, pos) => {
    if (!node.isTextblock) return true;
    for (const match of node.textContent.matchAll(/[ab]+/g)) {
      words.push({ from: pos + 1 + match.index, to: pos + 1 + match.index + match[0].length });
    }
    return false;
  });
  const target = words[pick % words.length];
  const pinned = anchorFromRange(replicas[0], target.from, target.to);
  const notes = replicas.map(() => new Y.Doc());
  const created = createAnnotation(notes[0], {
    kind: 'instruction',
    ...pinned,
    author: { id: 'u1', name: 'Ada' },
    text: 'uppercase',
    now: 1,
  });
  if (!created.ok) throw new Error(created.error.message);
  for (const other of notes.slice(1)) Y.applyUpdate(other, Y.encodeStateAsUpdate(notes[0]));
  const outbox: World['outbox'] = [];
  replicas.forEach((replica, from) =>
    replica.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin !== remote) outbox.push({ from, update });
    }),
  );
  return { replicas, notes, anchor: pinned.anchor, quote: pinned.quote, annotationId: created.id, outbox };
}

/** Delivers every update to every other replica in the order given by `order`. */
function exchange(world: World, order: number[]): void {
  const deliveries = world.outbox.flatMap(({ from, update }) =>
    world.replicas.map((_r, to) => ({ to, update })).filter(({ to }) => to !== from),
  );
  world.outbox.length = 0;
  const shuffled = order.length === 0 ? deliveries : shuffle(deliveries, order);
  for (const { to, update } of shuffled) Y.applyUpdate(world.replicas[to], update, remote);
}

function shuffle<T>(items: T[], keys: number[]): T[] {
  return items
    .map((item, i) => ({ item, key: keys[i % keys.length] * 1_000_003 + i }))
    .sort((a, b) => a.key - b.key)
    .map(({ item }) => item);
}

function expectIdentical(replicas: Y.Doc[]): void {
  const [first, ...rest] = replicas;
  for (const replica of rest) {
    expect(Y.encodeStateVector(replica)).toEqual(Y.encodeStateVector(first));
    expect(docParts(replica).content.toJSON()).toBe(docParts(first).content.toJSON());
    expect(readProseMirrorDoc(replica).toJSON()).toEqual(readProseMirrorDoc(first).toJSON());
  }
}

describe('anchors under concurrent edits (property)', () => {
  it('resolve to the same word on every replica when no edit touches it', () => {
    fc.assert(
      fc.property(markdown, fc.nat(), edits, fc.array(fc.nat(), { maxLength: 40 }), (md, pick, perReplica, order) => {
        const world = setUp(md, pick);
        perReplica.forEach((list, r) => list.forEach((e, k) => applyEdit(world.replicas[r], world.anchor, e, `${r}x${k}`)));
        exchange(world, order);
        expectIdentical(world.replicas);
        for (const [r, replica] of world.replicas.entries()) {
          const [annotation] = readAnnotations(world.notes[r]).annotations;
          const resolved = resolveAnchor(replica, annotation.anchor);
          expect(resolved.status === 'attached' && resolved.text).toBe(world.quote);
          expect(resolved).toEqual(resolveAnchor(world.replicas[0], world.anchor));
        }
      }),
      {
        numRuns: 100,
        examples: [
          // An emptied Y.XmlText next to an inserted block (a diff without a mapping would rewrite the block before it).
          [
            'a b\n\na',
            0,
            [[{ kind: 'yDelete', at: 1, offset: 0, length: 1 }, { kind: 'pmParagraph', at: 0, text: '' }], [], []],
            [],
          ],
        ],
      },
    );
  });

  it('leave the annotation orphaned on every replica, never dropped, when one replica deletes the word', () => {
    const deletion = fc.record({
      replica: fc.nat({ max: replicaCount - 1 }),
      wholeBlock: fc.boolean(),
      before: fc.nat({ max: 3 }),
      after: fc.nat({ max: 3 }),
    });
    fc.assert(
      fc.property(markdown, fc.nat(), edits, deletion, fc.array(fc.nat(), { maxLength: 40 }), (md, pick, perReplica, del, order) => {
        const world = setUp(md, pick);
        perReplica.forEach((list, r) => list.forEach((e, k) => applyEdit(world.replicas[r], world.anchor, e, `${r}x${k}`)));
        const deleter = world.replicas[del.replica];
        const { ytext, start, end, top } = locate(deleter, world.anchor);
        deleter.transact(() => {
          if (del.wholeBlock) {
            const content = docParts(deleter).content;
            content.delete(content.toArray().indexOf(top as Y.XmlElement), 1);
          } else {
            const from = Math.max(0, start - del.before);
            ytext.delete(from, Math.min(ytext.length, end + del.after) - from);
          }
        }, editOrigin);
        exchange(world, order);
        expectIdentical(world.replicas);
        for (const [r, replica] of world.replicas.entries()) {
          const { annotations, invalid } = readAnnotations(world.notes[r]);
          expect(invalid).toEqual([]);
          expect(annotations.map((a) => [a.id, a.quote])).toEqual([[world.annotationId, world.quote]]);
          expect(resolveAnchor(replica, annotations[0].anchor)).toEqual({ status: 'orphaned', reason: 'deleted' });
        }
      }),
      { numRuns: 60 },
    );
  });
});
