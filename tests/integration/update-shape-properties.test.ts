import fc from 'fast-check';
import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { docParts, notesParts, topLevelNames } from '../../shared/model/doc-layout.ts';
import { applyStored } from '../../server/store/update-log.ts';
import { defaultShapeLimits, inspectUpdate } from '../../server/sync/update-shape.ts';

/**
 * The shape of an update (server/sync/update-shape.ts) around its limits: a value or a nesting of
 * shared types exactly at a limit passes, one level more is refused, wherever the value sits and
 * however the update orders its structs; and no input, random bytes included, makes the reader
 * throw or lets through what Yjs cannot read back.
 */

const textRoots = topLevelNames('text');
const { typeDepth, valueDepth } = defaultShapeLimits;

/** A value `depth` levels deep (`[]` is 1), of arrays, objects or both alternating. */
function nestedValue(depth: number, kind: 'array' | 'object' | 'mixed'): unknown {
  let value: unknown = kind === 'object' ? {} : [];
  for (let level = 1; level < depth; level++) {
    const object = kind === 'object' || (kind === 'mixed' && level % 2 === 1);
    value = object ? { a: value, b: level } : [level, value];
  }
  return value;
}

/** The updates `change` makes to `ydoc`, one per transaction. */
function updatesOf(ydoc: Y.Doc, change: (ydoc: Y.Doc) => void): Uint8Array[] {
  const updates: Uint8Array[] = [];
  const listener = (update: Uint8Array) => updates.push(update);
  ydoc.on('update', listener);
  try {
    change(ydoc);
  } finally {
    ydoc.off('update', listener);
  }
  return updates;
}

/** Where a value can sit in the text document: a map entry, an attribute, a mark, an embed. */
const places: Record<string, (ydoc: Y.Doc, value: unknown) => void> = {
  meta: (ydoc, value) => docParts(ydoc).meta.set('extra', value),
  attribute: (ydoc, value) => {
    const paragraph = new Y.XmlElement('paragraph');
    docParts(ydoc).content.insert(0, [paragraph]);
    paragraph.setAttribute('data', value as string);
  },
  mark: (ydoc, value) => docParts(ydoc).html.insert(0, 'marked', { mark: value }),
  embed: (ydoc, value) => docParts(ydoc).html.insertEmbed(0, value as object),
};

/** `inspectUpdate` of each update in turn against `live`, applying those it lets through; the first problem's rule, or null. */
function judgeAll(live: Y.Doc, updates: Uint8Array[]): string | null {
  for (const update of updates) {
    const report = inspectUpdate(update, live, textRoots);
    if (report.problem) return report.problem.rule;
    Y.applyUpdate(live, update);
  }
  return null;
}

describe('the shape of an update around its limits', () => {
  it('[SHAPE2] lets a value exactly as deep as the limit through, and refuses one a level deeper, wherever it sits', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(places)), fc.constantFrom('array' as const, 'object' as const, 'mixed' as const), fc.integer({ min: -3, max: 3 }), (place, kind, offset) => {
        const depth = valueDepth + offset;
        const writer = new Y.Doc();
        const live = new Y.Doc();
        const rule = judgeAll(live, updatesOf(writer, (ydoc) => places[place](ydoc, nestedValue(depth, kind))));
        expect(rule).toBe(depth > valueDepth ? 'SHAPE2' : null);
        if (rule === null) expect(() => Y.encodeStateAsUpdate(live)).not.toThrow();
      }),
      { numRuns: 100 },
    );
  });

  it('[SHAPE2] lets shared types nest exactly as deep as the limit, and refuses one level more, in one update or across many', () => {
    fc.assert(
      fc.property(fc.integer({ min: -2, max: 2 }), fc.integer({ min: 1, max: 8 }), fc.boolean(), (offset, updates, viaMaps) => {
        // The deepest item (an entry of the innermost element or map) lies `levels` below the fragment.
        const levels = typeDepth + offset;
        const writer = new Y.Doc();
        const live = new Y.Doc();
        const perUpdate = Math.ceil((levels - 1) / updates);
        let made = 1;
        let parent: Y.XmlFragment | Y.XmlElement | Y.Map<unknown> = docParts(writer).content;
        const batches: Uint8Array[] = [];
        while (made < levels) {
          batches.push(
            ...updatesOf(writer, (ydoc) =>
              ydoc.transact(() => {
                for (let step = 0; step < perUpdate && made < levels; step++, made++) {
                  if (viaMaps && made > 1 && parent instanceof Y.Map) {
                    const child = new Y.Map<unknown>();
                    parent.set('child', child);
                    parent = child;
                  } else if (viaMaps && made > 1) {
                    const child = new Y.Map<unknown>();
                    (parent as Y.XmlElement).setAttribute('child', child as unknown as string);
                    parent = child;
                  } else {
                    const child = new Y.XmlElement('blockquote');
                    (parent as Y.XmlElement).insert(0, [child]);
                    parent = child;
                  }
                }
              }),
            ),
          );
        }
        batches.push(...updatesOf(writer, () => (parent instanceof Y.Map ? parent.set('leaf', 1) : (parent as Y.XmlElement).setAttribute('leaf', 'yes'))));
        expect(judgeAll(live, batches)).toBe(levels > typeDepth ? 'SHAPE2' : null);
      }),
      { numRuns: 60 },
    );
  });

  it('[SHAPE3] lets a value of exactly as many entries as the limit through, and refuses one more, in a map entry or an embed', () => {
    const { valueEntries } = defaultShapeLimits;
    for (const place of ['meta', 'embed']) {
      for (const extra of [0, 1]) {
        const wide = { rows: Array.from({ length: valueEntries - 2 + extra }, (_, index) => index), end: true };
        const rule = judgeAll(new Y.Doc(), updatesOf(new Y.Doc(), (ydoc) => places[place](ydoc, wide)));
        expect(rule, `${place} with ${valueEntries + extra} entries`).toBe(extra === 0 ? null : 'SHAPE3');
      }
    }
  });

  it('[SHAPE1] refuses content under a top-level type the layout does not name, also when it comes after content already there', () => {
    const writer = new Y.Doc();
    const stash = writer.getArray<number>('stash');
    const [first] = updatesOf(writer, () => stash.push([1]));
    const [second] = updatesOf(writer, () => stash.push([2]));
    const live = new Y.Doc();
    expect(inspectUpdate(first, live, textRoots).problem?.rule).toBe('SHAPE1');
    // As a server before the check would have: the first is in; the second reaches the stash only through its neighbour.
    Y.applyUpdate(live, first);
    expect(inspectUpdate(second, live, textRoots).problem?.rule).toBe('SHAPE1');
    expect(inspectUpdate(second, live, null).problem).toBeNull();
    // The notes have a map of their own, and NOTES11 for the rest.
    const notes = new Y.Doc();
    const [record] = updatesOf(notes, () => notesParts(notes).annotations.set('a', 1));
    expect(inspectUpdate(record, new Y.Doc(), textRoots).problem?.rule).toBe('SHAPE1');
    expect(inspectUpdate(record, new Y.Doc(), topLevelNames('notes')).problem).toBeNull();
  });

  it('[SHAPE1] refuses a subdocument', () => {
    const writer = new Y.Doc();
    const [update] = updatesOf(writer, () => docParts(writer).meta.set('sub', new Y.Doc()));
    expect(inspectUpdate(update, new Y.Doc(), textRoots).problem?.rule).toBe('SHAPE1');
  });

  it('[SHAPE2] reads a value 200,000 levels deep, which Yjs itself cannot, and refuses it', () => {
    const deep = handMadeDeepUpdate(200_000);
    expect(() => Y.decodeUpdate(deep)).toThrow(RangeError);
    const report = inspectUpdate(deep, new Y.Doc(), textRoots);
    expect(report.problem?.rule).toBe('SHAPE2');
    // What can be read of it: the entry, as a deleted item in the same place.
    const live = new Y.Doc();
    Y.applyUpdate(live, report.readable()!);
    expect(docParts(live).meta.toJSON()).toEqual({});
  });

  it('[SHAPE2] refuses such a value also where the document holds its item already, since Yjs reads it before it skips it', () => {
    const deep = handMadeDeepUpdate(200_000);
    const loaded = new Y.Doc();
    applyStored(loaded, { state: deep, updates: [], lastSeq: 0 });
    expect(Y.getState(loaded.store, 7)).toBe(1);
    const report = inspectUpdate(deep, loaded, textRoots);
    expect(report.problem?.rule).toBe('SHAPE2');
    expect(() => Y.applyUpdate(loaded, report.readable()!)).not.toThrow();
    expect(docParts(loaded).meta.toJSON()).toEqual({});
  });

  it('[SHAPE4] never throws, whatever the bytes, and what it lets through Yjs reads and writes back', () => {
    const honest = new Y.Doc();
    const samples = updatesOf(honest, (ydoc) => {
      docParts(ydoc).meta.set('title', 'A title');
      const paragraph = new Y.XmlElement('paragraph');
      docParts(ydoc).content.insert(0, [paragraph]);
      paragraph.insert(0, [new Y.XmlText('some words')]);
      (paragraph.get(0) as Y.XmlText).format(0, 4, { bold: {} });
      docParts(ydoc).meta.set('nested', nestedValue(5, 'mixed'));
    });
    samples.push(handMadeDeepUpdate(50));
    const mutated = fc
      .tuple(fc.nat(samples.length - 1), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }))
      .map(([which, flips]) => {
        const bytes = samples[which].slice();
        for (const [at, value] of flips) bytes[at % bytes.length] = value;
        return bytes;
      });
    fc.assert(
      fc.property(fc.oneof(mutated, fc.uint8Array({ maxLength: 64 })), (bytes) => {
        const live = new Y.Doc();
        const report = inspectUpdate(bytes, live, textRoots);
        const readable = report.readable();
        if (readable === null) return;
        try {
          Y.applyUpdate(live, readable);
        } catch (error) {
          // Yjs refuses some bytes the shape allows (an id out of range, say); never for want of stack.
          expect(error).not.toBeInstanceOf(RangeError);
          return;
        }
        expect(() => Y.encodeStateAsUpdate(live)).not.toThrow();
        expect(() => live.toJSON()).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it('[SHAPE5] applies a stored document without what Yjs cannot read back, keeping what comes after it', () => {
    const writer = new Y.Doc();
    const updates = [
      ...updatesOf(writer, (ydoc) => docParts(ydoc).meta.set('title', 'Kept')),
      ...updatesOf(writer, (ydoc) => ydoc.getMap('stash').set('deep', nestedValue(5_000, 'array'))),
      ...updatesOf(writer, (ydoc) => docParts(ydoc).meta.set('deep', nestedValue(valueDepth + 1, 'object'))),
      ...updatesOf(writer, (ydoc) => docParts(ydoc).meta.set('after', 'also kept')),
    ];
    const left: unknown[] = [];
    const loaded = new Y.Doc();
    applyStored(loaded, { state: null, updates, lastSeq: updates.length }, { name: 'doc1', onLeftOut: (leftOut) => left.push(leftOut) });
    expect(docParts(loaded).meta.toJSON()).toEqual({ title: 'Kept', after: 'also kept' });
    expect(loaded.getMap('stash').toJSON()).toEqual({});
    expect(left).toEqual([{ name: 'doc1', structs: 2, entries: 0, rule: 'SHAPE2', message: 'Values may nest at most 32 levels deep.' }]);
    expect(inspectUpdate(Y.encodeStateAsUpdate(loaded), new Y.Doc(), null).problem).toBeNull();
  });
});

/**
 * One map entry of `meta` holding arrays nested `depth` deep, written byte by byte: Yjs's own
 * `writeAny` would run out of stack long before.
 */
function handMadeDeepUpdate(depth: number): Uint8Array {
  const scratch = new Y.Doc();
  const meta = docParts(scratch).meta;
  const key = new TextEncoder().encode([...scratch.share].find(([, type]) => (type as unknown) === meta)![0]);
  // One client (7) from clock 0, one item: info = ContentAny (8) with a parent sub; parent by key.
  const head = [1, 1, 7, 0, 8 | 0b0010_0000, 1, key.length, ...key, 1, 0x78, 1];
  const bytes = new Uint8Array(head.length + depth * 2 + 1 + 1);
  bytes.set(head);
  for (let level = 0; level < depth; level++) bytes.set([117, 1], head.length + level * 2);
  bytes[head.length + depth * 2] = 126;
  bytes[head.length + depth * 2 + 1] = 0;
  return bytes;
}
