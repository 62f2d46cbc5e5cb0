import { describe, expect, it } from 'vitest';
import { parseInstruction } from '../../agents/reference/instruction-language.ts';
import { planInstruction } from '../../agents/reference/plan.ts';
import { markdownToDoc } from '../../shared/model/markdown.ts';
import { viewBlock, type BlockView } from '../../shared/model/doc-content.ts';

function block(markdown: string): BlockView {
  return viewBlock(markdownToDoc(markdown).child(0));
}

describe('the reference agent’s instruction language', () => {
  it.each([
    ['replace "cat" with "dog"', { kind: 'replace', find: 'cat', replacement: 'dog' }],
    ['  Replace “cat” with “dog”. ', { kind: 'replace', find: 'cat', replacement: 'dog' }],
    ['replace "cat" with ""', { kind: 'replace', find: 'cat', replacement: '' }],
    ['UPPERCASE', { kind: 'uppercase' }],
    ['lowercase.', { kind: 'lowercase' }],
    ['delete', { kind: 'delete' }],
    ['insert "A new line" after', { kind: 'insert_after', text: 'A new line' }],
    ['replace "cat" with one of "dog", "fox", "owl"', { kind: 'replace_variants', find: 'cat', replacements: ['dog', 'fox', 'owl'] }],
    ['Replace “cat” with one of “dog” or “fox”.', { kind: 'replace_variants', find: 'cat', replacements: ['dog', 'fox'] }],
    ['replace "cat" with one of "a", "b", "c", "d"', { kind: 'replace_variants', find: 'cat', replacements: ['a', 'b', 'c', 'd'] }],
  ])('understands %j', (text, action) => {
    expect(parseInstruction(text)).toEqual(action);
  });

  it.each(['make it better', 'replace "cat" with one of "dog"', 'replace "cat" with one of "a", "b", "c", "d", "e"', 'replace cat with dog', 'replace "" with "x"', 'insert "" after', 'delete everything', ''])(
    'does not understand %j',
    (text) => {
      expect(parseInstruction(text)).toBeNull();
    },
  );
});

describe('the reference agent’s plan for one instruction', () => {
  it('[VAR4] proposes one candidate per alternative, each replacing every occurrence, with the hash it read', () => {
    const target = block('The **cat** sat; the cat ran.');
    const plan = planInstruction('i1', 'replace "cat" with one of "dog", "fox", "owl"', target);
    expect(plan).toEqual({
      kind: 'ops',
      ops: [
        {
          op: 'propose_variants',
          blockId: target.id,
          instructionId: 'i1',
          expectHash: target.hash,
          candidates: ['The **dog** sat; the dog ran.', 'The **fox** sat; the fox ran.', 'The **owl** sat; the owl ran.'],
        },
      ],
    });
    expect(planInstruction('i1', 'replace "emu" with one of "dog", "fox"', target)).toEqual({ kind: 'refusal', reason: '"emu" does not occur in this text.' });
  });

  it('replaces every occurrence inside the block, keeping marks, with the hash it read', () => {
    const target = block('The **cat** sat; the cat ran.');
    const plan = planInstruction('i1', 'replace "cat" with "dog"', target);
    expect(plan).toEqual({
      kind: 'ops',
      ops: [{ op: 'replace_block', blockId: target.id, instructionId: 'i1', expectHash: target.hash, markdown: 'The **dog** sat; the dog ran.' }],
    });
  });

  it('changes case without touching Markdown syntax or link targets', () => {
    const target = block('See [the Docs](https://example.com/Path) *now*');
    const plan = planInstruction('i1', 'uppercase', target);
    expect(plan.kind === 'ops' && plan.ops[0]).toMatchObject({ markdown: 'SEE [THE DOCS](https://example.com/Path) *NOW*' });
    expect(planInstruction('i1', 'lowercase', target)).toMatchObject({ kind: 'ops' });
  });

  it('deletes the block and inserts a literal paragraph after it', () => {
    const target = block('Keep me');
    expect(planInstruction('i2', 'delete', target)).toEqual({
      kind: 'ops',
      ops: [{ op: 'delete_block', blockId: target.id, instructionId: 'i2', expectHash: target.hash }],
    });
    const insert = planInstruction('i3', 'insert "*not* emphasis" after', target);
    expect(insert).toEqual({
      kind: 'ops',
      ops: [{ op: 'insert_after', blockId: target.id, instructionId: 'i3', markdown: '\\*not\\* emphasis' }],
    });
  });

  it('refuses what it does not understand, and says what it does', () => {
    const plan = planInstruction('i1', 'write a poem', block('x'));
    expect(plan.kind).toBe('refusal');
    expect(plan.kind === 'refusal' && plan.reason).toMatch(/did not understand/);
    expect(plan.kind === 'refusal' && plan.reason).toContain('replace "A" with "B"');
  });

  it('refuses a replacement with nothing to replace and a block that is gone', () => {
    expect(planInstruction('i1', 'replace "zebra" with "x"', block('no stripes'))).toEqual({
      kind: 'refusal',
      reason: '"zebra" does not occur in this text.',
    });
    expect(planInstruction('i1', 'delete', undefined).kind).toBe('refusal');
  });

  describe('REF1: a text change stays inside the pinned text', () => {
    const pin = (quote: string, currentText: string | null = quote) => ({ quote, currentText });
    const markdownOf = (plan: ReturnType<typeof planInstruction>) => (plan.kind === 'ops' && plan.ops[0].op === 'replace_block' ? plan.ops[0].markdown : plan);

    it('uppercases only the five words pinned, leaving another person’s sentence and its formatting', () => {
      const target = block('Mine is **these five words here** now. Theirs is [a link](https://example.com/x) too.');
      expect(markdownOf(planInstruction('i1', 'uppercase', target, pin('five words here now.')))).toBe(
        'Mine is **these FIVE WORDS HERE** NOW. Theirs is [a link](https://example.com/x) too.',
      );
    });

    it('lowercases and replaces only inside the range', () => {
      const target = block('One CAT. Two CAT. Three CAT.');
      expect(markdownOf(planInstruction('i1', 'lowercase', target, pin('Two CAT')))).toBe('One CAT. two cat. Three CAT.');
      expect(markdownOf(planInstruction('i1', 'replace "CAT" with "dog"', target, pin('Two CAT. Three')))).toBe('One CAT. Two dog. Three CAT.');
      expect(planInstruction('i1', 'replace "CAT" with "dog"', target, pin('Two'))).toEqual({
        kind: 'refusal',
        reason: '"CAT" does not occur in this text.',
      });
    });

    it('takes the whole block when the pin is empty or is the whole block', () => {
      const target = block('Alpha *beta*');
      expect(markdownOf(planInstruction('i1', 'uppercase', target, pin('')))).toBe('ALPHA *BETA*');
      expect(markdownOf(planInstruction('i1', 'uppercase', target, pin('Alpha beta')))).toBe('ALPHA *BETA*');
    });

    it('reads the text at send over the quote when the pin drifted, and refuses a pin no longer in the block', () => {
      const target = block('Alpha beta gamma');
      expect(markdownOf(planInstruction('i1', 'uppercase', target, pin('beta', 'gamma')))).toBe('Alpha beta GAMMA');
      expect(planInstruction('i1', 'uppercase', target, pin('zeta'))).toEqual({
        kind: 'refusal',
        reason: 'The text this instruction was pinned to is no longer in its block.',
      });
    });

    it('finds the pinned words when an earlier instruction of the run changed their case', () => {
      const target = block('ALPHA BETA gamma');
      expect(markdownOf(planInstruction('i2', 'replace "A" with "4"', target, pin('alpha beta')))).toBe('4LPH4 BET4 gamma');
    });

    it('changes the pinned item of a list, and the part of a pin that spans into the next block', () => {
      expect(markdownOf(planInstruction('i1', 'uppercase', block('* one\n* two\n* three'), pin('two')))).toBe('* one\n* TWO\n* three');
      expect(markdownOf(planInstruction('i1', 'uppercase', block('First line ends'), pin('ends\nNext block')))).toBe('First line ENDS');
    });

    it('deletes the block the pin is in whatever the pin covers', () => {
      const target = block('Alpha beta');
      expect(planInstruction('i1', 'delete', target, pin('beta'))).toEqual({
        kind: 'ops',
        ops: [{ op: 'delete_block', blockId: target.id, instructionId: 'i1', expectHash: target.hash }],
      });
    });
  });
});
