import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as Y from 'yjs';
import { applyOps, type ApplierRun } from '../../shared/applier/applier.ts';
import { chooseVariant } from '../../shared/applier/choose-variant.ts';
import { managerScope } from '../../shared/applier/run-items.ts';
import { runUndoManager, undoRun } from '../../shared/applier/run-scope.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import type { ProposeVariantsOp } from '../../shared/applier/ops.ts';
import type { ChangeVariants } from '../../shared/protocol/run-record.ts';
import { assetUrl } from '../../shared/model/image-src.ts';
import { bytes, markdowns, replaceOp, setup } from '../helpers/applier-fixture.ts';

/*
 * VAR1, VAR2: a propose_variants is checked as a replace of each candidate and writes the
 * first; choosing another candidate rewrites the item's blocks only, in the run's scope, so
 * that Discard takes back whichever is shown and keeps what people typed elsewhere.
 */

function variantsOp(block: { id: string; hash: string }, candidates: string[], instructionId = 'i1'): ProposeVariantsOp {
  return { op: 'propose_variants', blockId: block.id, expectHash: block.hash, instructionId, candidates };
}

/** A run over the fixture with a live undo manager, answering i1 with `candidates` on block 1. */
function proposed(candidates: string[]) {
  const fixture = setup();
  const { ydoc, blocks, run, origin } = fixture;
  const manager = runUndoManager(ydoc, origin);
  const result = applyOps(ydoc, [variantsOp(blocks[1], candidates)], run, origin);
  if (!result.ok) throw new Error(result.error.message);
  const change = result.changes[0];
  let variants: ChangeVariants = { candidates: change.candidates ?? [], chosen: 0, blockIds: change.blockIds };
  const choose = (chosen: number) => {
    const { insertions } = managerScope(manager);
    const answer = chooseVariant(
      ydoc,
      { runId: run.runId, instructionId: 'i1', blockId: blocks[1].id, variants, chosen, writtenByRun: (item) => Y.isDeleted(insertions, item.id), makeId: run.makeId },
      origin,
    );
    if (!answer.ok) throw new Error(answer.error.message);
    variants = answer.variants;
    return answer;
  };
  return { ...fixture, manager, change, choose, variants: () => variants };
}

/** Types `text` at the start of the top-level block `at` (an index, or the start of its text), as a person (no run origin). */
function personTypes(ydoc: Y.Doc, at: number | string, text: string) {
  const texts = docParts(ydoc)
    .content.toArray()
    .map((block) => (block as Y.XmlElement).toArray().find((child) => child instanceof Y.XmlText) as Y.XmlText | undefined);
  const ytext = typeof at === 'number' ? texts[at] : texts.find((candidate) => candidate?.toString().startsWith(at));
  if (!ytext) throw new Error(`No block ${at} to type in`);
  ydoc.transact(() => ytext.insert(0, text), null);
}

describe('propose_variants (VAR1)', () => {
  it('writes the first candidate as the run change, keeping every candidate', () => {
    const { ydoc, change } = proposed(['Alpha ONE', 'Alpha TWO', 'Alpha THREE']);
    expect(markdowns(ydoc)[1]).toBe('Alpha ONE');
    expect(change.op).toBe('replace_block');
    expect(change.after).toBe('Alpha ONE');
    expect(change.before).toBe('Alpha beta gamma delta');
    expect(change.candidates).toEqual(['Alpha ONE', 'Alpha TWO', 'Alpha THREE']);
  });

  it('refuses the whole op, changing nothing, for a bad candidate, a stale hash or a wrong count', () => {
    const { ydoc, blocks, run, origin } = setup();
    const before = bytes(ydoc);
    const refusals: [unknown, string, RegExp][] = [
      [[variantsOp(blocks[1], ['Fine', ''])], 'INVALID_OP', /Candidate 1 of the op at index 0/],
      [[{ ...variantsOp(blocks[1], ['A', 'B']), expectHash: 'stale' }], 'STALE_BLOCK', /has changed since it was read/],
      [[variantsOp(blocks[1], ['Only one'])], 'INVALID_OP', /1 candidates; propose 2 to 4/],
      [[variantsOp(blocks[1], ['1', '2', '3', '4', '5'])], 'INVALID_OP', /5 candidates/],
      [[{ ...variantsOp(blocks[1], ['A', 'B']), candidates: ['A', 7] }], 'INVALID_OP', /candidates\[1\]" that is not a string/],
      [[variantsOp(blocks[4], ['A', 'B'])], 'OUTSIDE_FENCE', /no instruction of this run targets/],
      [[variantsOp(blocks[1], ['A', 'B']), replaceOp(blocks[2], 'Other', 'i1')], 'INVALID_OP', /variants are the one answer/],
      [[replaceOp(blocks[2], 'Other', 'i1'), variantsOp(blocks[1], ['A', 'B'])], 'INVALID_OP', /another op answers already/],
      [[variantsOp(blocks[1], ['A', `![x](${assetUrl('doc2', 'ab'.repeat(32))})`])], 'UNKNOWN_ASSET', /no image uploaded/],
    ];
    for (const [ops, code, message] of refusals) {
      const result = applyOps(ydoc, ops as ProposeVariantsOp[], run, origin);
      expect(result.ok, JSON.stringify(ops)).toBe(false);
      if (result.ok) continue;
      expect(result.error.code).toBe(code);
      expect(result.error.message).toMatch(message);
    }
    expect(bytes(ydoc)).toEqual(before);
  });

  it('refuses any op for an instruction an earlier batch answered with variants, and variants after another answer', () => {
    const { ydoc, blocks, run, origin } = setup();
    const later: ApplierRun = { ...run, answered: new Map([['i1', true], ['i2', false]]) };
    const replace = applyOps(ydoc, [replaceOp(blocks[2], 'Again', 'i1')], later, origin);
    expect(replace.ok || replace.error.code).toBe('INVALID_OP');
    const variants = applyOps(ydoc, [variantsOp(blocks[2], ['A', 'B'], 'i2')], later, origin);
    expect(variants.ok || variants.error.code).toBe('INVALID_OP');
    expect(applyOps(ydoc, [replaceOp(blocks[2], 'Fine', 'i2')], later, origin).ok).toBe(true);
  });
});

describe('choose a variant (VAR2)', () => {
  it('shows the chosen candidate in place and keeps what a person typed elsewhere', () => {
    const { ydoc, choose } = proposed(['Alpha ONE', 'Alpha TWO']);
    personTypes(ydoc, 'Second', 'Bob: ');
    expect(choose(1).after).toBe('Alpha TWO');
    expect(markdowns(ydoc)).toEqual(['# Title', 'Alpha TWO', 'Bob: Second paragraph here', '* one\n* two', 'Outside the fence']);
    choose(0);
    expect(markdowns(ydoc)[1]).toBe('Alpha ONE');
  });

  it('goes between candidates of several blocks and of other types, one block each way', () => {
    const { ydoc, choose } = proposed(['First\n\nand a second block', '## A heading', 'Plain again']);
    expect(markdowns(ydoc).slice(1, 3)).toEqual(['First', 'and a second block']);
    choose(1);
    expect(markdowns(ydoc)).toEqual(['# Title', '## A heading', 'Second paragraph here', '* one\n* two', 'Outside the fence']);
    choose(2);
    expect(markdowns(ydoc)).toEqual(['# Title', 'Plain again', 'Second paragraph here', '* one\n* two', 'Outside the fence']);
    choose(0);
    expect(markdowns(ydoc).slice(1, 4)).toEqual(['First', 'and a second block', 'Second paragraph here']);
  });

  it('Discard after a choice takes back exactly the run, the people typing around it kept', () => {
    const { ydoc, choose, manager } = proposed(['## Heading one', 'Para two\n\nand three']);
    personTypes(ydoc, 0, 'My ');
    choose(1);
    personTypes(ydoc, 'Second', 'Bob: ');
    expect(undoRun(manager)).toBe(true);
    expect(markdowns(ydoc)).toEqual(['# My Title', 'Alpha beta gamma delta', 'Bob: Second paragraph here', '* one\n* two', 'Outside the fence']);
  });

  it('[property] any sequence of choices with people typing elsewhere shows the chosen one, and Discard restores the rest as typed', () => {
    const pool = ['Alpha ONE', 'Alpha beta TWO delta', '## Alpha heading', 'Line one\n\nLine *two*', '- an item\n- another', '> quoted **alpha**'];
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...pool), { minLength: 2, maxLength: 4 }),
        fc.array(fc.record({ chosen: fc.nat(3), typeAt: fc.constantFrom(0, -1, -2), text: fc.constantFrom('x', 'Bob ', '42 ') }), { maxLength: 8 }),
        (candidates, steps) => {
          const { ydoc, choose, manager, variants } = proposed(candidates);
          const typed = { first: '', last: '' };
          for (const step of steps) {
            const chosen = step.chosen % candidates.length;
            choose(chosen);
            expect(variants().chosen).toBe(chosen);
            const shown = markdowns(ydoc);
            const expected = variants().candidates[chosen].split('\n\n');
            expect(shown.slice(1, 1 + expected.length).join('\n\n')).toBe(expected.join('\n\n'));
            if (step.typeAt === 0) {
              personTypes(ydoc, 0, step.text);
              typed.first = step.text + typed.first;
            } else if (step.typeAt === -1) {
              personTypes(ydoc, docParts(ydoc).content.length - 1, step.text);
              typed.last = step.text + typed.last;
            }
          }
          undoRun(manager);
          expect(markdowns(ydoc)).toEqual([`# ${typed.first}Title`, 'Alpha beta gamma delta', 'Second paragraph here', '* one\n* two', `${typed.last}Outside the fence`]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
