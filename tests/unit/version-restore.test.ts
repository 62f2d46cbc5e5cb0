import fc from 'fast-check';
import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { docParts } from '../../shared/model/doc-layout.ts';
import { restoreContent } from '../../server/versions/restore-content.ts';

/*
 * HIST4 at the level of Yjs: whatever people (and runs, server-side writers alike) did to the
 * text, restoring a version gives every replica exactly that version's text, and the copies
 * name the items they copy (WHO4).
 */

type Edit =
  | { kind: 'type'; block: number; at: number; text: string }
  | { kind: 'erase'; block: number; at: number; length: number }
  | { kind: 'bold'; block: number; at: number; length: number }
  | { kind: 'split'; block: number }
  | { kind: 'drop'; block: number };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('type' as const), block: fc.nat(8), at: fc.nat(20), text: fc.string({ minLength: 1, maxLength: 6 }) }),
  fc.record({ kind: fc.constant('erase' as const), block: fc.nat(8), at: fc.nat(20), length: fc.integer({ min: 1, max: 5 }) }),
  fc.record({ kind: fc.constant('bold' as const), block: fc.nat(8), at: fc.nat(20), length: fc.integer({ min: 1, max: 5 }) }),
  fc.record({ kind: fc.constant('split' as const), block: fc.nat(8) }),
  fc.record({ kind: fc.constant('drop' as const), block: fc.nat(8) }),
);

let ids = 0;
function paragraph(text: string): Y.XmlElement {
  const element = new Y.XmlElement('paragraph');
  element.setAttribute('id', `b${++ids}`);
  element.insert(0, [new Y.XmlText(text)]);
  return element;
}

function apply(ydoc: Y.Doc, change: Edit): void {
  const content = docParts(ydoc).content;
  ydoc.transact(() => {
    if (content.length === 0) {
      content.insert(0, [paragraph('')]);
      return;
    }
    const index = change.block % content.length;
    const block = content.get(index) as Y.XmlElement;
    const text = block.get(0) as Y.XmlText;
    const at = Math.min(text.length, 'at' in change ? change.at : 0);
    if (change.kind === 'type') text.insert(at, change.text);
    else if (change.kind === 'erase') text.delete(at, Math.min(change.length, text.length - at));
    else if (change.kind === 'bold') text.format(at, Math.min(change.length, text.length - at), { bold: true });
    else if (change.kind === 'split') content.insert(index + 1, [paragraph(text.toString().slice(0, 3))]);
    else if (content.length > 1) content.delete(index, 1);
  });
}

function sync(a: Y.Doc, b: Y.Doc): void {
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a, Y.encodeStateVector(b)));
  Y.applyUpdate(a, Y.encodeStateAsUpdate(b, Y.encodeStateVector(a)));
}

const textOf = (ydoc: Y.Doc) => docParts(ydoc).content.toString();

describe('restoring a version', () => {
  it('[HIST4] gives every replica exactly the chosen version’s text after random edits by two people and the server', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(0, 1, 2), edit), { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.array(fc.tuple(fc.constantFrom(0, 1, 2), edit), { maxLength: 10 }),
        (edits, versionPoints, chosen, concurrent) => {
          const replicas = [new Y.Doc(), new Y.Doc(), new Y.Doc()];
          const server = replicas[2];
          docParts(server).content.insert(0, [paragraph('one'), paragraph('two'), paragraph('three')]);
          for (const replica of replicas) sync(server, replica);
          const versions: Uint8Array[] = [];
          const points = new Set(versionPoints.map((point) => point % edits.length));
          edits.forEach(([who, change], index) => {
            apply(replicas[who], change);
            if (index % 3 === 0) for (const replica of replicas) sync(server, replica);
            if (points.has(index)) {
              for (const replica of replicas) sync(server, replica);
              versions.push(Y.encodeStateAsUpdate(server));
            }
          });
          for (const replica of replicas) sync(server, replica);
          // Edits the server has not seen yet when it restores: they merge after it.
          for (const [who, change] of concurrent) if (who !== 2) apply(replicas[who], change);
          const version = new Y.Doc();
          Y.applyUpdate(version, versions[chosen % versions.length]);
          const ranges = server.transact(() => restoreContent(server, version));
          expect(textOf(server)).toBe(textOf(version));
          for (const range of ranges) expect(range.length).toBeGreaterThan(0);
          if (concurrent.every(([who]) => who === 2)) {
            for (const replica of replicas) sync(server, replica);
            for (const replica of replicas) expect(textOf(replica)).toBe(textOf(version));
          } else {
            for (let round = 0; round < 2; round++) for (const replica of replicas) sync(server, replica);
            // All replicas converge on one text, whatever the concurrent edits did.
            expect(new Set(replicas.map(textOf)).size).toBe(1);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('[HIST4] [WHO4] names, for every copied character, the item of the version it copies', () => {
    const people = new Y.Doc();
    people.clientID = 7;
    docParts(people).content.insert(0, [paragraph('hello')]);
    const other = new Y.Doc();
    other.clientID = 8;
    sync(people, other);
    ((docParts(other).content.get(0) as Y.XmlElement).get(0) as Y.XmlText).insert(5, ' world', { bold: true });
    sync(people, other);
    const version = new Y.Doc();
    Y.applyUpdate(version, Y.encodeStateAsUpdate(people));
    ((docParts(people).content.get(0) as Y.XmlElement).get(0) as Y.XmlText).delete(0, 11);
    people.clientID = 99;
    const ranges = people.transact(() => restoreContent(people, version));
    expect(textOf(people)).toBe(textOf(version));
    const fromClients = ranges.map((range) => [range.fromClient, range.length]);
    expect(fromClients).toEqual([
      [7, 5],
      [8, 6],
    ]);
    for (const range of ranges) {
      const copied = people.store.clients.get(99)!;
      expect(copied.some((struct) => struct.id.clock <= range.clock && range.clock < struct.id.clock + struct.length)).toBe(true);
    }
  });

  it('[HIST4] leaves the blocks the version begins and ends with as they are', () => {
    const live = new Y.Doc();
    docParts(live).content.insert(0, [paragraph('first'), paragraph('middle'), paragraph('last')]);
    const version = new Y.Doc();
    Y.applyUpdate(version, Y.encodeStateAsUpdate(live));
    const [first, , last] = docParts(live).content.toArray();
    ((docParts(live).content.get(1) as Y.XmlElement).get(0) as Y.XmlText).insert(0, 'changed ');
    live.transact(() => restoreContent(live, version));
    expect(textOf(live)).toBe(textOf(version));
    expect(docParts(live).content.get(0)).toBe(first);
    expect(docParts(live).content.get(2)).toBe(last);
  });
});
