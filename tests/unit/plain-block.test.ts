import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as Y from 'yjs';
import { changeMark } from '../../shared/applier/applier-marks.ts';
import { readBlock, updateBlock } from '../../shared/applier/applier-write.ts';
import { readPlainParagraph, unmarkedParagraphText, writePlainParagraph } from '../../shared/applier/plain-block.ts';
import { blockToMarkdown } from '../../shared/model/markdown.ts';
import { schema } from '../../shared/model/schema.ts';

/*
 * The plain paragraph shortcut of the applier (shared/applier/plain-block.ts) must be invisible:
 * wherever it answers, reading gives the Markdown the full reader (`readBlock` then
 * `blockToMarkdown`) gives, and writing leaves the text, character by character and mark by
 * mark, as `updateBlock` leaves it. The generated Yjs paragraphs mix what the shortcut accepts
 * (plain words, change marks) with what it must leave to the full path (other marks, malformed
 * or hashed change attributes, Markdown characters, extra attributes, several children).
 */

const seed = process.env.TANDEM_SEED ? Number(process.env.TANDEM_SEED) : undefined;

type Attributes = Record<string, unknown> | null;
interface Segment {
  text: string;
  attributes: Attributes;
}
interface Paragraph {
  segments: Segment[];
  extraAttribute: boolean;
  extraChild: 'none' | 'text' | 'break';
  /** Deletes the second character again, leaving a tombstone among the items. */
  tombstone: boolean;
}

const words = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('Alpha', ' beta', 'gamma', ' x', '9', ',', '.', 'é', ' 日本') },
  { weight: 1, arbitrary: fc.constantFrom(' ', '  ', '*', '_', '#', '😀', '\ud800') },
);
const segmentText = fc.array(words, { minLength: 0, maxLength: 4 }).map((parts) => parts.join(''));
const attributes = fc.constantFrom<Attributes>(
  null,
  null,
  null,
  null,
  { change: { runId: 'r1', instructionId: 'i1' } },
  { change: { runId: 'r1', instructionId: 'i1' } },
  { change: { runId: 'r2', instructionId: 'i2' } },
  { change: { runId: 'r2', instructionId: 'i2' } },
  { change: { runId: 'r1' } },
  { change: { runId: 'r1', instructionId: 'i1', extra: 1 } },
  { change: true },
  { em: {} },
  { 'change--abcdefgh': { runId: 'r1', instructionId: 'i1' } },
);
const paragraph: fc.Arbitrary<Paragraph> = fc.record({
  // Mostly led by a word, as a plain line must be.
  segments: fc
    .tuple(fc.constantFrom('Alpha', 'Alpha', 'Alpha', 'é', '', '*'), attributes, fc.array(fc.record({ text: segmentText, attributes }), { maxLength: 4 }))
    .map(([lead, leadAttributes, rest]) => [{ text: lead, attributes: leadAttributes }, ...rest]),
  extraAttribute: fc.constantFrom(false, false, false, false, true),
  extraChild: fc.constantFrom('none', 'none', 'none', 'none', 'text', 'break'),
  tombstone: fc.boolean(),
});

/** A text Y.Doc holding one paragraph written as raw Yjs, as any client could write it. */
function build({ segments, extraAttribute, extraChild, tombstone }: Paragraph): { ydoc: Y.Doc; yelement: Y.XmlElement } {
  const ydoc = new Y.Doc();
  const yelement = new Y.XmlElement('paragraph');
  ydoc.getXmlFragment('content').insert(0, [yelement]);
  ydoc.transact(() => {
    yelement.setAttribute('id', 'b1');
    if (extraAttribute) yelement.setAttribute('deleting', 'not json');
    const ytext = new Y.XmlText();
    yelement.insert(0, [ytext]);
    let at = 0;
    for (const { text, attributes } of segments) {
      if (text === '') continue;
      ytext.insert(at, text, attributes ?? {});
      at += text.length;
    }
    if (tombstone && at > 2) ytext.delete(1, 1);
    if (extraChild === 'text') yelement.insert(1, [new Y.XmlText('more')]);
    if (extraChild === 'break') yelement.insert(1, [new Y.XmlElement('hard_break')]);
  });
  return { ydoc, yelement };
}

/** The text's characters with their attributes, runs of equal attributes merged. */
function characters(yelement: Y.XmlElement): { insert: string; attributes: unknown }[] {
  const runs: { insert: string; attributes: unknown }[] = [];
  for (const ychild of yelement.toArray()) {
    if (!(ychild instanceof Y.XmlText)) continue;
    for (const { insert, attributes } of ychild.toDelta() as { insert: string; attributes?: unknown }[]) {
      const last = runs[runs.length - 1];
      if (last !== undefined && JSON.stringify(last.attributes) === JSON.stringify(attributes ?? {})) last.insert += insert;
      else runs.push({ insert, attributes: attributes ?? {} });
    }
  }
  return runs;
}

describe('plain paragraphs in Yjs', () => {
  it('read as the full reader reads them, wherever the shortcut answers', () => {
    let plain = 0;
    fc.assert(
      fc.property(paragraph, (spec) => {
        const { yelement } = build(spec);
        const text = readPlainParagraph(yelement);
        if (text === null) return;
        plain++;
        const node = readBlock(yelement);
        expect(node?.type.name).toBe('paragraph');
        expect(text).toBe(blockToMarkdown(node!));
      }),
      { seed, numRuns: 3000 },
    );
    expect(plain).toBeGreaterThan(100);
  });

  it('are rewritten as updateBlock rewrites them: same characters, same marks', () => {
    let plain = 0;
    const mark = changeMark('r3', 'i3');
    fc.assert(
      fc.property(paragraph, segmentText, fc.nat(), fc.nat(4), (spec, typed, at, cut) => {
        const slow = build(spec);
        const before = readPlainParagraph(slow.yelement);
        // An edit of the old text: `cut` characters at `at` replaced by `typed`.
        const old = before ?? '';
        const from = at % (old.length + 1);
        const afterText = old.slice(0, from) + typed + old.slice(from + cut) || 'Alpha';
        const after = schema.nodes.paragraph.create({ id: 'b1' }, schema.text(afterText));
        if (before === null || unmarkedParagraphText(after) !== afterText) return;
        plain++;
        const fast = { ydoc: new Y.Doc() };
        Y.applyUpdate(fast.ydoc, Y.encodeStateAsUpdate(slow.ydoc));
        const fastElement = fast.ydoc.getXmlFragment('content').get(0) as Y.XmlElement;
        slow.ydoc.transact(() => updateBlock(slow.yelement, after, mark));
        fast.ydoc.transact(() => writePlainParagraph(fastElement, before, afterText, mark));
        expect(characters(fastElement)).toEqual(characters(slow.yelement));
        expect(fastElement.getAttributes()).toEqual(slow.yelement.getAttributes());
        expect(readBlock(fastElement)?.eq(readBlock(slow.yelement)!)).toBe(true);
      }),
      { seed, numRuns: 2000 },
    );
    expect(plain).toBeGreaterThan(100);
  });

  it('leave a paragraph with marks, several children or other attributes to the full path', () => {
    const marked = build({ segments: [{ text: 'Alpha', attributes: { em: {} } }], extraAttribute: false, extraChild: 'none', tombstone: false });
    const twoTexts = build({ segments: [{ text: 'Alpha', attributes: null }], extraAttribute: false, extraChild: 'text', tombstone: false });
    const attribute = build({ segments: [{ text: 'Alpha', attributes: null }], extraAttribute: true, extraChild: 'none', tombstone: false });
    const hashed = build({ segments: [{ text: 'Alpha', attributes: { 'change--abcdefgh': { runId: 'r', instructionId: 'i' } } }], extraAttribute: false, extraChild: 'none', tombstone: false });
    const plain = build({ segments: [{ text: 'Alpha', attributes: { change: { runId: 'r', instructionId: 'i' } } }, { text: ' beta', attributes: null }], extraAttribute: false, extraChild: 'none', tombstone: false });
    expect([marked, twoTexts, attribute, hashed].map(({ yelement }) => readPlainParagraph(yelement))).toEqual([null, null, null, null]);
    expect(readPlainParagraph(plain.yelement)).toBe('Alpha beta');
    expect(unmarkedParagraphText(schema.nodes.paragraph.create({ id: 'b1' }, schema.text('Alpha', [schema.marks.em.create()])))).toBe(null);
  });
});
