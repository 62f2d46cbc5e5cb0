/**
 * The small instruction language of the built-in reference agent (docs/api.md, "The reference agent's language"):
 *
 *   replace "A" with "B"   ·   uppercase   ·   lowercase   ·   delete   ·   insert "TEXT" after
 *   replace "A" with one of "B", "C", "D"   (2 to 4 alternatives: variants, VAR4)
 *
 * and, on an element of a page (PAGE10), `set text "T"`.
 *
 * Case and surrounding space do not matter, a final full stop is allowed, and curly quotes
 * count as quotes. Anything else is not understood.
 */

export type ReferenceAction =
  | { kind: 'replace'; find: string; replacement: string }
  | { kind: 'replace_variants'; find: string; replacements: string[] }
  | { kind: 'uppercase' }
  | { kind: 'lowercase' }
  | { kind: 'delete' }
  | { kind: 'insert_after'; text: string }
  | { kind: 'set_text'; text: string };

const quoted = '["“”]([^"“”]*)["“”]';
const replacePattern = new RegExp(`^replace\\s+${quoted}\\s+with\\s+${quoted}$`, 'i');
const alternativesPattern = new RegExp(`^replace\\s+${quoted}\\s+with\\s+one\\s+of\\s+(${quoted}(?:\\s*(?:,|or|,\\s*or)\\s*${quoted}){1,3})$`, 'i');
const quotedGlobal = new RegExp(quoted, 'g');
const insertPattern = new RegExp(`^insert\\s+${quoted}\\s+after$`, 'i');
const setTextPattern = new RegExp(`^set\\s+text\\s+${quoted}$`, 'i');

/** The action an instruction asks for, or null when the reference agent does not understand it. */
export function parseInstruction(text: string): ReferenceAction | null {
  const sentence = text.trim().replace(/\.$/, '').trim();
  const word = sentence.toLowerCase();
  if (word === 'uppercase') return { kind: 'uppercase' };
  if (word === 'lowercase') return { kind: 'lowercase' };
  if (word === 'delete') return { kind: 'delete' };
  const alternatives = alternativesPattern.exec(sentence);
  if (alternatives) {
    const replacements = [...alternatives[2].matchAll(quotedGlobal)].map((match) => match[1]);
    return alternatives[1] === '' ? null : { kind: 'replace_variants', find: alternatives[1], replacements };
  }
  const replace = replacePattern.exec(sentence);
  if (replace) return replace[1] === '' ? null : { kind: 'replace', find: replace[1], replacement: replace[2] };
  const insert = insertPattern.exec(sentence);
  if (insert) return insert[1].trim() === '' ? null : { kind: 'insert_after', text: insert[1] };
  const setText = setTextPattern.exec(sentence);
  if (setText) return { kind: 'set_text', text: setText[1] };
  return null;
}

export const understoodInstructions = [
  'replace "A" with "B"',
  'replace "A" with one of "B", "C", "D"',
  'uppercase',
  'lowercase',
  'delete',
  'insert "TEXT" after',
] as const;
