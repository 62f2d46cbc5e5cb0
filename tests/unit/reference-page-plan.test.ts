import { describe, expect, it } from 'vitest';
import { parseInstruction } from '../../agents/reference/instruction-language.ts';
import { planPageInstruction } from '../../agents/reference/page-plan.ts';
import { planInstruction } from '../../agents/reference/plan.ts';
import { maxElementText } from '../../shared/page/page-model.ts';

const element = { id: 'e1', tag: 'h1', text: 'Hello world', hash: 'h1' };

describe('the reference agent on a page element', () => {
  it('[PAGE10] understands set text "T"', () => {
    expect(parseInstruction('Set text “Welcome”.')).toEqual({ kind: 'set_text', text: 'Welcome' });
  });

  it.each([
    ['replace "world" with "team"', 'Hello team'],
    ['uppercase', 'HELLO WORLD'],
    ['lowercase', 'hello world'],
    ['set text "Hi"', 'Hi'],
  ])('[PAGE10] answers %j with one set_text of the element, sent with the hash it read', (instruction, text) => {
    expect(planPageInstruction('i1', instruction, element)).toEqual({
      kind: 'ops',
      ops: [{ op: 'set_text', elementId: 'e1', text, expectHash: 'h1', instructionId: 'i1' }],
    });
  });

  it.each(['delete', 'insert "x" after', 'make it sing'])('[PAGE10] refuses %j with what it understands on a page', (instruction) => {
    const plan = planPageInstruction('i1', instruction, element);
    expect(plan).toEqual({ kind: 'refusal', reason: expect.stringContaining('set text "T"') });
  });

  it('[PAGE10] refuses a change that changes nothing, a missing element, and rewriting a text it saw cut short', () => {
    expect(planPageInstruction('i1', 'replace "moon" with "sun"', element)).toMatchObject({ kind: 'refusal' });
    expect(planPageInstruction('i1', 'uppercase', undefined)).toMatchObject({ kind: 'refusal' });
    const long = { ...element, text: 'x'.repeat(maxElementText - 1) + '…' };
    expect(planPageInstruction('i1', 'uppercase', long)).toMatchObject({ kind: 'refusal' });
    expect(planPageInstruction('i1', 'set text "Short"', long)).toMatchObject({ kind: 'ops' });
  });

  it('[PAGE10] refuses set text in a text document', () => {
    const block = { id: 'b1', parentId: null, type: 'paragraph', markdown: 'Hello', hash: 'h' };
    expect(planInstruction('i1', 'set text "x"', block)).toMatchObject({ kind: 'refusal' });
  });
});
