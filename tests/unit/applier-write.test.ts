import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as Y from 'yjs';
import type { Mark, Node } from 'prosemirror-model';
import { changeMark, mayHoldChangeMark } from '../../shared/applier/applier-marks.ts';
import { readBlock, updateBlock } from '../../shared/applier/applier-write.ts';
import { withoutChangeMarks } from '../../shared/model/markdown.ts';
import { schema } from '../../shared/model/schema.ts';

/*
 * The applier's writer formats only the characters whose marks change (shared/applier/
 * applier-write.ts `updateText`). That must leave every text exactly as formatting every
 * character would: the same characters with the same marks, over random formatted texts
 * written as raw Yjs (marks stored as ProseMirror writes them, and otherwise: hashed names,
 * missing or extra attributes) rewritten to random formatted texts, as the applier does (change
 * marks kept, the new text marked) and as Accept does (change marks written as given).
 */

const seed = process.env.TANDEM_SEED ? Number(process.env.TANDEM_SEED) : undefined;

type Attributes = Record<string, unknown>;
const notAsProseMirrorWrites: Attributes[] = [
  { link: { href: 'https://a.example/' } },
  { change: { runId: 'r1' } },
  { 'em--abcdefgh': {} },
  { 'change--abcdefgh': { runId: 'r2', instructionId: 'i2' } },
  { change: true },
];
const rawAttributes = fc.constantFrom<Attributes>(
  {},
  {},
  { em: {} },
  { strong: {} },
  { em: {}, strong: {} },
  { link: { href: 'https://a.example/', title: null } },
  { change: { runId: 'r1', instructionId: 'i1' } },
  { change: { runId: 'r2', instructionId: 'i2' }, em: {} },
  ...notAsProseMirrorWrites,
);
const letters = fc.stringMatching(/^[ab ]{1,4}$/);
const raw = fc.array(fc.record({ text: letters, attributes: rawAttributes }), { minLength: 1, maxLength: 4 });

const pmMarks: Mark[][] = [
  [],
  [],
  [schema.marks.em.create()],
  [schema.marks.strong.create()],
  [schema.marks.em.create(), schema.marks.strong.create()],
  [schema.marks.link.create({ href: 'https://a.example/' })],
  [schema.marks.change.create({ runId: 'r1', instructionId: 'i1' })],
];
const next = fc.array(fc.record({ text: letters, marks: fc.nat(pmMarks.length - 1) }), { minLength: 1, maxLength: 4 });

function build(segments: { text: string; attributes: Attributes }[]): { ydoc: Y.Doc; yelement: Y.XmlElement } {
  const ydoc = new Y.Doc();
  const yelement = new Y.XmlElement('paragraph');
  ydoc.getXmlFragment('content').insert(0, [yelement]);
  ydoc.transact(() => {
    yelement.setAttribute('id', 'b1');
    const ytext = new Y.XmlText();
    yelement.insert(0, [ytext]);
    let at = 0;
    for (const { text, attributes } of segments) {
      ytext.insert(at, text, { ...attributes });
      at += text.length;
    }
  });
  return { ydoc, yelement };
}

function characters(yelement: Y.XmlElement): { insert: string; attributes: string }[] {
  const runs: { insert: string; attributes: string }[] = [];
  const ytext = yelement.get(0) as Y.XmlText;
  for (const { insert, attributes } of ytext.toDelta() as { insert: string; attributes?: Attributes }[]) {
    const key = JSON.stringify(Object.entries(attributes ?? {}).sort(([a], [b]) => a.localeCompare(b)));
    const last = runs[runs.length - 1];
    if (last !== undefined && last.attributes === key) last.insert += insert;
    else runs.push({ insert, attributes: key });
  }
  return runs;
}

describe('updateBlock', () => {
  it('formats only what changes, leaving each character as formatting every character would', () => {
    let shortcut = 0;
    fc.assert(
      fc.property(raw, next, fc.boolean(), (segments, nextSegments, accept) => {
        const slow = build(segments);
        const fast = { ydoc: new Y.Doc() };
        Y.applyUpdate(fast.ydoc, Y.encodeStateAsUpdate(slow.ydoc));
        const fastElement = fast.ydoc.getXmlFragment('content').get(0) as Y.XmlElement;
        const after: Node = schema.nodes.paragraph.create(
          { id: 'b1' },
          nextSegments.map(({ text, marks }) => schema.text(text, pmMarks[marks])),
        );
        const mark = accept ? null : changeMark('r3', 'i3');
        slow.ydoc.transact(() => updateBlock(slow.yelement, after, mark, !accept, true));
        fast.ydoc.transact(() => updateBlock(fastElement, after, mark, !accept));
        expect(characters(fastElement)).toEqual(characters(slow.yelement));
        const read = readBlock(fastElement);
        expect(read !== null && read.eq(readBlock(slow.yelement)!)).toBe(true);
        if (!segments.some(({ attributes }) => notAsProseMirrorWrites.includes(attributes))) shortcut++;
      }),
      { seed, numRuns: 1500 },
    );
    expect(shortcut).toBeGreaterThan(300);
  });
});

describe('mayHoldChangeMark', () => {
  it("misses no block whose text reads with the run's change marks", () => {
    const answers = new Set<boolean>();
    fc.assert(
      fc.property(raw, fc.constantFrom('r1', 'r2', 'r3'), fc.boolean(), (segments, runId, quoted) => {
        const { yelement: paragraph } = build(segments);
        let yblock = paragraph;
        if (quoted) {
          // The same content one level down, as in a blockquote or a list.
          const ydoc = new Y.Doc();
          yblock = new Y.XmlElement('blockquote');
          ydoc.getXmlFragment('content').insert(0, [yblock]);
          yblock.insert(0, [paragraph.clone()]);
        }
        const may = mayHoldChangeMark(yblock, runId);
        answers.add(may);
        const before = readBlock(yblock);
        if (!may && before !== null) expect(withoutChangeMarks(before, runId)).toBe(before);
      }),
      { seed, numRuns: 1500 },
    );
    expect([...answers].sort()).toEqual([false, true]);
  });
});
