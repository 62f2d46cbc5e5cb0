import { describe, expect, it } from 'vitest';
import { parseInstruction, understoodInstructions } from '../../agents/reference/instruction-language.ts';
import { planPageInstruction } from '../../agents/reference/page-plan.ts';
import { planInstruction, type Plan } from '../../agents/reference/plan.ts';
import { markdownToDoc } from '../../shared/model/markdown.ts';
import { viewBlock, type BlockView } from '../../shared/model/doc-content.ts';

/*
 * VAR4 for the reference agent: `replace "A" with one of "B", "C", "D"` is one propose_variants
 * whose candidates are the block changed as `replace "A" with "B"` would change it, one per
 * alternative, inside the pinned text (REF1).
 */

function block(markdown: string): BlockView {
  return viewBlock(markdownToDoc(markdown).child(0));
}

const pin = (quote: string, currentText: string | null = quote) => ({ quote, currentText });

function candidatesOf(plan: Plan): string[] {
  if (plan.kind !== 'ops' || plan.ops.length !== 1 || plan.ops[0].op !== 'propose_variants') throw new Error(`not one propose_variants: ${JSON.stringify(plan)}`);
  return plan.ops[0].candidates;
}

describe('the reference agent’s variants', () => {
  it('[VAR4] gives each candidate the change a plain replace with that alternative makes', () => {
    const target = block('One *cat*, two [cat](https://example.com/cat).');
    const plan = planInstruction('i1', 'replace "cat" with one of "dog", "fox", "owl", "emu"', target);
    const alone = ['dog', 'fox', 'owl', 'emu'].map((animal) => {
      const single = planInstruction('i1', `replace "cat" with "${animal}"`, target);
      return single.kind === 'ops' && single.ops[0].op === 'replace_block' ? single.ops[0].markdown : null;
    });
    expect(candidatesOf(plan)).toEqual(alone);
    expect(candidatesOf(plan)[0]).toBe('One *dog*, two [dog](https://example.com/cat).');
  });

  it('[VAR4] [REF1] changes only the pinned text in every candidate', () => {
    const target = block('The cat sat; the cat ran.');
    const plan = planInstruction('i1', 'replace "cat" with one of "dog", "fox"', target, pin('the cat ran'));
    expect(candidatesOf(plan)).toEqual(['The cat sat; the dog ran.', 'The cat sat; the fox ran.']);
    // The pin as the anchors cover it at Send wins over the quote.
    const drifted = planInstruction('i1', 'replace "cat" with one of "dog", "fox"', target, pin('the cow ran', 'The cat sat'));
    expect(candidatesOf(drifted)).toEqual(['The dog sat; the cat ran.', 'The fox sat; the cat ran.']);
  });

  it('[VAR4] refuses as a replace does: the word not in the pinned text, the pin gone, the block gone', () => {
    const target = block('The cat sat; the dog ran.');
    const variants = 'replace "cat" with one of "owl", "fox"';
    expect(planInstruction('i1', variants, target, pin('the dog ran'))).toEqual({ kind: 'refusal', reason: '"cat" does not occur in this text.' });
    expect(planInstruction('i1', 'replace "emu" with one of "owl", "fox"', target)).toEqual({ kind: 'refusal', reason: '"emu" does not occur in this text.' });
    expect(planInstruction('i1', variants, target, pin('a sentence since deleted'))).toEqual({
      kind: 'refusal',
      reason: 'The text this instruction was pinned to is no longer in its block.',
    });
    expect(planInstruction('i1', variants, undefined)).toEqual({ kind: 'refusal', reason: 'The text this instruction points at no longer exists.' });
  });

  it('[VAR4] keeps the plain replace a single replace_block', () => {
    const target = block('The cat sat.');
    expect(planInstruction('i1', 'replace "cat" with "dog"', target)).toEqual({
      kind: 'ops',
      ops: [{ op: 'replace_block', blockId: target.id, instructionId: 'i1', markdown: 'The dog sat.', expectHash: target.hash }],
    });
    // A single quoted alternative after "one of" is no instruction at all, not a replace.
    expect(parseInstruction('replace "cat" with one of "dog"')).toBeNull();
  });

  it('[VAR4] says it understands alternatives when it refuses an instruction it does not understand', () => {
    expect(understoodInstructions).toContain('replace "A" with one of "B", "C", "D"');
    expect(planInstruction('i1', 'make it sing', block('Text.'))).toEqual({
      kind: 'refusal',
      reason: expect.stringContaining('replace "A" with one of "B", "C", "D"'),
    });
  });

  it('[VAR4] proposes no variants of a page element, and does not offer them there', () => {
    const element = { id: 'e1', tag: 'h1', text: 'Hello world', hash: 'h1' };
    expect(planPageInstruction('i1', 'replace "world" with one of "team", "all"', element)).toEqual({
      kind: 'refusal',
      reason: expect.stringContaining('text documents only'),
    });
    const notUnderstood = planPageInstruction('i1', 'make it sing', element);
    expect(notUnderstood.kind === 'refusal' && notUnderstood.reason).not.toContain('one of');
  });
});
