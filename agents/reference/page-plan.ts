import type { ElementView } from '../../shared/wire/docs.ts';
import { parseInstruction, understoodInstructions } from './instruction-language.ts';
import { maxElementText } from '../../shared/page/page-model.ts';

/** A page op as PROTOCOL.md PAGE5 writes it; the reference agent sends only set_text. */
export type PlannedPageOp = { op: 'set_text'; elementId: string; text: string; expectHash: string; instructionId: string };

export type PagePlan = { kind: 'ops'; ops: PlannedPageOp[] } | { kind: 'refusal'; reason: string };

/**
 * PAGE10: what the reference agent does for one instruction on an element of a page, as it read
 * it: `replace "A" with "B"`, `uppercase`, `lowercase` and `set text "T"` become one `set_text`
 * of the element's new text. Deterministic.
 */
export function planPageInstruction(instructionId: string, instruction: string, element: ElementView | undefined): PagePlan {
  const action = parseInstruction(instruction);
  if (!action || action.kind === 'delete' || action.kind === 'insert_after') {
    const understood = [...understoodInstructions.filter((phrase) => phrase !== 'delete' && !phrase.startsWith('insert') && !phrase.includes('one of')), 'set text "T"'];
    return { kind: 'refusal', reason: `I did not understand this instruction for a page element. I understand: ${understood.join(' · ')}.` };
  }
  if (action.kind === 'replace_variants') {
    return { kind: 'refusal', reason: 'I propose variants in text documents only; on a page, ask for one replacement: replace "A" with "B".' };
  }
  if (!element) return { kind: 'refusal', reason: 'The element this instruction points at no longer exists.' };
  if (element.text.length >= maxElementText && action.kind !== 'set_text') {
    return { kind: 'refusal', reason: "This element's text is too long for me to rewrite whole; use set text \"T\"." };
  }
  const text =
    action.kind === 'set_text'
      ? action.text
      : action.kind === 'replace'
        ? element.text.split(action.find).join(action.replacement)
        : action.kind === 'uppercase'
          ? element.text.toUpperCase()
          : element.text.toLowerCase();
  if (text === element.text) {
    return { kind: 'refusal', reason: action.kind === 'replace' ? `"${action.find}" does not occur in this element's text.` : 'The text already reads so.' };
  }
  return { kind: 'ops', ops: [{ op: 'set_text', elementId: element.id, text, expectHash: element.hash, instructionId }] };
}
