import { describe, expect, it } from 'vitest';
import { asideRoute, isQuestion } from '../../shared/protocol/aside-route.ts';
import { parseAsideReply } from '../../agents/model/aside.ts';

const fence = '```';

/** Each text, and whether it asks a question. */
const cases: [string, boolean][] = [
  ['Why did you delete the tests?', true],
  ['Delete the tests.', false],
  ['Delete the tests', false],
  ['', false],
  ['   ', false],
  ['?', true],
  ['Is this done?   ', true],
  ['Is this done?\n\n', true],
  ['Is this done?\t', true],
  ['Fullwidth question mark？', true],
  ['这是什么？', true],
  ['ما هذا؟', true],
  ['(is this right?)', true],
  ['He said "is this right?"', true],
  ["He said 'is this right?'", true],
  ['「これは正しいですか?」', true],
  ['「これは正しいですか？」', true],
  ['He asked “why?”', true],
  ['[why?] )', true],
  ['Why? No, do it anyway.', false],
  ['Is this right? I think not!', false],
  ['Stop (now)', false],
  ['A question mark ? in the middle', false],
  [`Look at this:\n${fence}\nconst x = a ? b : c?\n${fence}`, false],
  [`Look at this:\n${fence}js\nwhat?\n${fence}\n`, false],
  [`Unclosed code:\n${fence}\nwhat?`, false],
  [`~~~\nwhat?\n~~~`, false],
  [`Why does this fail?\n${fence}\nthrow new Error()\n${fence}`, true],
  [`${fence}\nnot a question\n${fence}\nAnd after the code, a question?`, true],
];

describe('where an aside goes', () => {
  it.each(cases)('[ASIDE2] %j is a question: %s', (text, question) => {
    expect(isQuestion(text)).toBe(question);
    expect(asideRoute(text)).toBe(question ? 'side' : 'agent');
  });

  it('[ASIDE2] steers whatever the text ends with when the person says steer', () => {
    expect(asideRoute('Why did you delete the tests?', true)).toBe('agent');
    expect(asideRoute('Delete the tests.', true)).toBe('agent');
  });
});

describe("the model's side answer", () => {
  it('[ASIDE10] reads the route line, a handoff line and the answer', () => {
    expect(parseAsideReply('route: side\nhandoff: Shorten the intro\nIt is on item 2.\nAll well.')).toEqual({
      route: 'side',
      handoff: 'Shorten the intro',
      answer: 'It is on item 2.\nAll well.',
    });
    expect(parseAsideReply('Route: Agent\nYou are right, I will keep the tests.')).toEqual({
      route: 'agent',
      handoff: null,
      answer: 'You are right, I will keep the tests.',
    });
  });

  it('[ASIDE10] answers on the side when the model gives no route line', () => {
    expect(parseAsideReply('It is going well.')).toEqual({ route: 'side', handoff: null, answer: 'It is going well.' });
  });
});
